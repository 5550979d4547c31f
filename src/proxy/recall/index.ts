export { RECALL_TOOL_TOKENS } from './dialects.js';
export { answerWithRecall, type RecallJob } from './loop.js';
export { planRecall, type RecallPlan } from './offer.js';
