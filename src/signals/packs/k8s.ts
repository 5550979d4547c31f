import type { SignalPack } from '../rule.js';

/** Kubernetes and containers: states that mean not running as it should, klog's levels. */
export const k8s: SignalPack = {
  name: 'k8s',
  rules: [
    {
      id: 'k8s/bad-state',
      kind: 'error',
      // kubectl's STATUS column.
      pattern:
        /\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainer(?:Config)?Error|RunContainerError|ContainerStatusUnknown|Evicted)\b/,
      marks: ['BackOff', 'ErrImagePull', 'rror', 'ContainerStatusUnknown', 'Evicted'],
      middle: ['BackOff', 'ErrImagePull', 'CreateContainer', 'ContainerStatusUnknown', 'Evicted'],
      examples: [
        'api-7d9c4-xk2p   0/1     CrashLoopBackOff   12 (3m ago)   30m',
        'api-7d9c4-m9qz   0/1     ImagePullBackOff   0             30m',
        'api-7d9c4-r4tw   0/1     CreateContainerConfigError   0   30m',
      ],
      counterExamples: ['api-7d9c4-xk2p   1/1     Running            0             30m'],
    },
    {
      id: 'k8s/docker-exited',
      kind: 'error',
      // docker ps: a container that exited with a non-zero status, or keeps restarting.
      pattern: /\bExited \([1-9]\d*\)|\bRestarting \(\d+\)/,
      marks: ['xit', 'Restarting \\('],
      examples: [
        '3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Exited (137) 5 minutes ago',
        '3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Restarting (1) 3 seconds ago',
      ],
      counterExamples: [
        '3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Exited (0) 5 minutes ago',
      ],
    },
    {
      id: 'k8s/klog-error',
      kind: 'error',
      // klog's E and F lines: E1201 09:00:00.000000.
      pattern: /^[EF]\d{4} \d\d:\d\d:\d\d\.\d+ /,
      marks: ['^[EFW]\\d{4} '],
      middle: [':\\d\\d\\.\\d{6} '],
      examples: ['E1201 09:00:00.000000       1 reflector.go:138] watch of *v1.Pod ended'],
      counterExamples: ['I1201 09:00:00.000000       1 reflector.go:255] Listing and watching *v1.Pod'],
    },
    {
      id: 'k8s/klog-warning',
      kind: 'warning',
      pattern: /^W\d{4} \d\d:\d\d:\d\d\.\d+ /,
      marks: ['^[EFW]\\d{4} '],
      middle: [':\\d\\d\\.\\d{6} '],
      examples: ['W1201 09:00:00.000000       1 reflector.go:424] watch of *v1.Pod ended'],
      counterExamples: ['W1201 is a room number'],
    },
  ],
};
