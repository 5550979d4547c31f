/** The clients spillway sets up: each a folder with one spec, and the machinery they share. */
export type { ClientSetup, ClientSpec, HookHandler } from './client-spec.js';
export { doctor } from './doctor.js';
export type { HookInput } from './hook-io.js';
export { CLIENT_KEYS, type ClientKey, isClientKey, loadClient, loadClients } from './registry.js';
export {
  applySetup,
  leavesAsItIs,
  type PlannedFile,
  planSetup,
  readSetup,
  type SetupState,
  sealHolder,
  setupStateDir,
  undoSetup,
} from './setup-files.js';
export type { FileEdit, SetupOptions } from './setup-plan.js';
export { spillwayCommand, spillwayShell } from './spillway-command.js';
