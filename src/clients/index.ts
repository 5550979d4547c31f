/** The clients spillway sets up: each a folder with one spec, and the machinery they share. */
export type { ClientSpec, HookHandler } from './client-spec.js';
export { doctor } from './doctor.js';
export { CLIENT_KEYS, type ClientKey, isClientKey, loadClient, loadClients } from './registry.js';
export { applySetup, planSetup, readSetup, setupStateDir, undoSetup } from './setup-files.js';
export type { FileEdit, SetupOptions } from './setup-plan.js';
