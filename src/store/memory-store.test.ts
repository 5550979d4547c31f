import { storeContract } from '../test-support/store-contract.js';
import { MemoryStore } from './memory-store.js';

storeContract('MemoryStore', async (limits) => new MemoryStore(limits));
