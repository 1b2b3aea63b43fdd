// The frame every end-to-end file on the real containerd shares: whether it
// skips itself (only outside CI, when this machine cannot run the private
// containerd: under CI that must fail instead), and one private containerd
// with a CRI client per describe block, the nodes its tests create disposed
// after each test.
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { CriRuntime } from '../../../src/cri/grpc-client.js';
import { createNode, criClient, type Node } from './agent-node.js';
import { localRuntimeUnavailable, startLocalRuntime, type LocalRuntime } from './local-runtime.js';

/** Whether the file's tests skip themselves; says so once, naming `what`. */
export function skipWithoutRuntime(what: string): boolean {
  const unavailable = localRuntimeUnavailable();
  const skip = unavailable !== undefined && !process.env['CI'];
  if (skip) console.warn(`${what} e2e tests skipped: ${unavailable}`);
  return skip;
}

export interface E2eRuntime {
  readonly rt: LocalRuntime;
  readonly cri: CriRuntime;
  /** A node (manifest directory, root directory, agents) disposed after the current test. */
  newNode(): Node;
}

/**
 * Call inside a describe block: starts the private containerd and its CRI
 * client in beforeAll, disposes each test's nodes in afterEach, stops both in
 * afterAll. Read `rt` and `cri` inside tests only.
 */
export function useRuntime(): E2eRuntime {
  const nodes: Node[] = [];
  const env = {
    newNode: (): Node => {
      const node = createNode(env.rt, env.cri);
      nodes.push(node);
      return node;
    },
  } as { rt: LocalRuntime; cri: CriRuntime; newNode(): Node };
  beforeAll(async () => {
    env.rt = await startLocalRuntime();
    env.cri = await criClient(env.rt);
  }, 90_000);
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.dispose();
  }, 60_000);
  afterAll(async () => {
    env.cri?.close();
    await env.rt?.stop();
  }, 90_000);
  return env;
}
