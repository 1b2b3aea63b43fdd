// issue 18 D: streaming. What the FakeRuntime answers to Exec, Attach and
// PortForward: a URL of the test's choosing (a small streaming server the
// test runs), after the checks containerd makes before it hands one out.
import type { AttachRequest, ExecRequest, PortForwardRequest } from './types.js';

/** Decides the streaming URL the fake hands out for an accepted request. Must not throw. */
export type FakeStream = (r: FakeStreamRequest) => string;
export type FakeStreamRequest =
  | { kind: 'exec'; req: ExecRequest }
  | { kind: 'attach'; req: AttachRequest }
  | { kind: 'portForward'; req: PortForwardRequest };

let seq = 0;
/** Nothing listens on port 1: a proxied stream to it fails, as one to a runtime gone away. */
export const defaultStreamUrl: FakeStream = (r) => `http://127.0.0.1:1/${r.kind}/${++seq}`;

/** containerd's refusals of an exec request (and, with any cmd, of an attach), as its messages read; undefined when acceptable. */
export function execRequestError(req: ExecRequest): string | undefined {
  if (req.cmd.length === 0) return 'cmd must not be empty';
  if (!req.stdin && !req.stdout && !req.stderr) return 'one of stdin, stdout, or stderr must be set';
  if (req.tty && req.stderr) return 'tty and stderr cannot both be true';
  return undefined;
}
