// The shared storage suite against the in-memory store.
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import { describeStorage } from './suite.js';

describeStorage('memory', () => Promise.resolve(createMemoryStorage()));
