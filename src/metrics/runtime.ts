// Latency and errors of every CRI call, as the kubelet's instrumented runtime
// service records them (runtime_operations_duration_seconds and
// runtime_operations_errors_total by operation_type).
import type { RuntimeService } from '../cri/types.js';
import type { AgentMetrics } from './registry.js';

/**
 * The kubelet's operation_type of a CRI method: snake case, with `pod_sandbox`
 * written `podsandbox` (run_podsandbox, list_podsandbox_stats). Pure.
 */
export function operationType(method: string): string {
  return method
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/pod_sandbox/g, 'podsandbox');
}

/** Methods of the wrapped object that are not CRI calls (never timed). */
const NOT_CALLS = new Set(['constructor', 'close', 'then']);

/**
 * Wraps a RuntimeService (or a whole Runtime, images included) so every
 * method call that returns a promise is timed and its rejection counted; the
 * result and the error pass through unchanged. Methods added to the CRI
 * later (streaming, stats) are covered without a change here. The composition
 * root wraps the client once and hands the wrapper to every user.
 */
export function instrumentRuntime<T extends RuntimeService>(runtime: T, m: Pick<AgentMetrics, 'runtimeOperation'>): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(runtime, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || NOT_CALLS.has(prop)) return value;
      const cached = wrapped.get(prop);
      if (cached !== undefined) return cached;
      const fn = value as (...args: unknown[]) => unknown;
      const op = operationType(prop);
      const timed = (...args: unknown[]): unknown => {
        const start = performance.now();
        let out: unknown;
        try {
          out = fn.apply(target, args);
        } catch (e) {
          m.runtimeOperation(op, (performance.now() - start) / 1000, true);
          throw e;
        }
        if (!(out instanceof Promise)) return out;
        return out.then(
          (v: unknown) => {
            m.runtimeOperation(op, (performance.now() - start) / 1000, false);
            return v;
          },
          (e: unknown) => {
            m.runtimeOperation(op, (performance.now() - start) / 1000, true);
            throw e;
          },
        );
      };
      wrapped.set(prop, timed);
      return timed;
    },
  });
}
