import { MemoryStorage } from './memory-storage';
import { describeStorageContract } from './storage-contract';

describeStorageContract('MemoryStorage', async () => new MemoryStorage(), { groups: true });
