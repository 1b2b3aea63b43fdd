import type { AgentLogger } from '../../log/index.js';

/** What auth and tls log through: the agent's logger, or a test's fake. */
export type AuthLog = Pick<AgentLogger, 'info' | 'warn' | 'v'>;
