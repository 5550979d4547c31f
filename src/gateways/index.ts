export { gatewayRefusal } from './auth.js';
export { type Compressed, type CompressInput, compressBody } from './compress.js';
export { compressRoute, type GatewayAnswer } from './compress-route.js';
export { anchorResults, continuedKey, conversationKey } from './conversation-key.js';
export { type Bounded, DEFAULT_DEADLINE_MS, withinDeadline } from './deadline.js';
export { type ExtProcOptions, type RunningExtProc, startExtProc } from './ext-proc.js';
export {
  decodeProcessingRequest,
  encodeProcessingResponse,
  type Mutation,
  type Phase,
  type ProcessingRequest,
} from './ext-proc-messages.js';
export {
  GATEWAY_HASH,
  type HashEntry,
  hashOfRecallId,
  lookupHash,
  recordHashes,
  withHashMarkers,
} from './hash-marker.js';
export { portkeyHookRoute } from './portkey-hook.js';
export { retrieveRoute } from './retrieve.js';
export { type GatewayRoutesOptions, gatewayRoutes } from './routes.js';
