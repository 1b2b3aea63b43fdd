// The exposition text of /metrics/resource and /metrics/cadvisor: exact
// lines for a known summary, and promtool's lint when promtool is installed
// (/usr/bin/promtool; CI installs it, so there the check always runs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cadvisorMetrics, renderFamilies, resourceMetrics } from '../../../src/stats/exposition.js';
import type { StatsSnapshot, Summary } from '../../../src/stats/types.js';

const T = '2026-01-01T00:00:10Z';
const TMS = Date.parse(T);
const summary: Summary = {
  node: {
    nodeName: 'n1', startTime: '2025-12-31T00:00:00Z',
    cpu: { time: T, usageCoreNanoSeconds: 5_500_000_000, usageNanoCores: 1 },
    memory: { time: T, workingSetBytes: 600, usageBytes: 800, rssBytes: 300, pageFaults: 5, majorPageFaults: 1 },
    network: { time: T, name: 'eth0', rxBytes: 1, interfaces: [{ name: 'eth0', rxBytes: 1, rxErrors: 0, txBytes: 2, txErrors: 0 }] },
  },
  pods: [{
    podRef: { name: 'web', namespace: 'default', uid: 'u1' }, startTime: T,
    cpu: { time: T, usageCoreNanoSeconds: 2_000_000_000 },
    memory: { time: T, workingSetBytes: 300 },
    containers: [{
      name: 'app', startTime: '2026-01-01T00:00:01Z',
      cpu: { time: T, usageCoreNanoSeconds: 2_000_000_000 },
      memory: { time: T, workingSetBytes: 300, usageBytes: 400 },
      rootfs: { time: T, usedBytes: 10, capacityBytes: 1000 },
    }],
  }],
};
const snap: StatsSnapshot = { summary, scrapeError: false, containers: [{ podUid: 'u1', container: 'app', id: 'abc', image: 'docker.io/library/busybox:1.36', cgroup: '/k8s.io/abc' }] };

function promtool(text: string): { status: number | null; out: string } {
  const r = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}
const HAVE_PROMTOOL = existsSync('/usr/bin/promtool');

describe('renderFamilies', () => {
  it('escapes label values and help, leaves out empty families', () => {
    expect(renderFamilies([
      { name: 'a_total', help: 'with \\ and\nnewline', type: 'counter', samples: [{ labels: [['l', 'q"\\\n']], value: 1.5, timeMs: 7 }] },
      { name: 'b', help: 'none', type: 'gauge', samples: [] },
    ])).toBe('# HELP a_total with \\\\ and\\nnewline\n# TYPE a_total counter\na_total{l="q\\"\\\\\\n"} 1.5 7\n');
  });
});

describe('resourceMetrics', () => {
  it('gives the kubelet families with their labels and sample times', () => {
    const text = resourceMetrics(summary, false);
    expect(text).toContain('# TYPE node_cpu_usage_seconds_total counter\n');
    expect(text).toContain(`node_cpu_usage_seconds_total 5.5 ${TMS}\n`);
    expect(text).toContain(`node_memory_working_set_bytes 600 ${TMS}\n`);
    expect(text).toContain(`container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 2 ${TMS}\n`);
    expect(text).toContain(`container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 300 ${TMS}\n`);
    expect(text).toContain(`container_start_time_seconds{container="app",namespace="default",pod="web"} ${Date.parse('2026-01-01T00:00:01Z') / 1000} ${TMS}\n`);
    expect(text).toContain(`pod_cpu_usage_seconds_total{namespace="default",pod="web"} 2 ${TMS}\n`);
    expect(text).toContain(`pod_memory_working_set_bytes{namespace="default",pod="web"} 300 ${TMS}\n`);
    expect(text).toContain('scrape_error 0\n');
  });

  it('reports a scrape error before the first refresh and after a failed source', () => {
    expect(resourceMetrics(undefined, false)).toBe('# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE scrape_error gauge\nscrape_error 1\n');
    expect(resourceMetrics(summary, true)).toContain('scrape_error 1\n');
  });

  it.runIf(HAVE_PROMTOOL || process.env.CI === 'true')('passes promtool check metrics', () => {
    const r = promtool(resourceMetrics(summary, false));
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('cadvisorMetrics', () => {
  it('gives the container_* families with cAdvisor labels for the root cgroup and each container', () => {
    const text = cadvisorMetrics(snap);
    const labels = 'container="app",cpu="total",id="/k8s.io/abc",image="docker.io/library/busybox:1.36",name="abc",namespace="default",pod="web"';
    expect(text).toContain(`container_cpu_usage_seconds_total{${labels}} 2 ${TMS}\n`);
    expect(text).toContain(`container_cpu_usage_seconds_total{container="",cpu="total",id="/",image="",name="",namespace="",pod=""} 5.5 ${TMS}\n`);
    expect(text).toContain(`container_memory_working_set_bytes{container="app",id="/k8s.io/abc",image="docker.io/library/busybox:1.36",name="abc",namespace="default",pod="web"} 300 ${TMS}\n`);
    expect(text).toContain(`container_memory_usage_bytes{container="app",id="/k8s.io/abc",image="docker.io/library/busybox:1.36",name="abc",namespace="default",pod="web"} 400 ${TMS}\n`);
    expect(text).toContain(`container_fs_usage_bytes{container="app",device="",id="/k8s.io/abc",image="docker.io/library/busybox:1.36",name="abc",namespace="default",pod="web"} 10 ${TMS}\n`);
    expect(text).toContain(`container_network_receive_bytes_total{container="",id="/",image="",interface="eth0",name="",namespace="",pod=""} 1 ${TMS}\n`);
    expect(text).toContain('container_memory_failures_total{container="",failure_type="pgmajfault",id="/",image="",name="",namespace="",pod="",scope="container"} 1');
    expect(text).toContain('container_scrape_error 0\n');
  });

  it.runIf(HAVE_PROMTOOL || process.env.CI === 'true')('passes promtool check metrics', () => {
    const r = promtool(cadvisorMetrics(snap));
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });
});
