// proxy/rewrite/: a model request's body through its conversation: the sessions, the rewrite, the window and its guard, token counts, the budget header.
export * from './body-with.js';
export * from './budget-header.js';
export * from './guard-request.js';
export * from './other-tokens.js';
export * from './request-tokens.js';
export * from './request-window.js';
export * from './rewrite.js';
export * from './sessions.js';
