export { answerWithRecall, type RecallJob } from './loop.js';
export { planRecall, type RecallPlan } from './offer.js';
