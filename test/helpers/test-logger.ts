// An AgentLogger that records what it is given, for assertions.
import type { AgentLogger, LogFields } from '../../src/log/index.js';

export interface LogRecord {
  level: 'info' | 'warn' | 'error' | `v${number}`;
  component: string;
  msg: string;
  fields: LogFields;
}

export function testLogger(records: LogRecord[] = [], component = 'test', verbosity = 10): AgentLogger & { records: LogRecord[] } {
  const log = (level: LogRecord['level']) => (msg: string, fields: LogFields = {}) => void records.push({ level, component, msg, fields });
  return {
    records,
    component,
    verbosity,
    get pino(): never {
      throw new Error('testLogger has no pino logger');
    },
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    v: (n: number) => (n <= verbosity ? { info: log(`v${n}`) } : undefined),
    child: (b) => testLogger(records, b.component ?? component, verbosity),
  };
}
