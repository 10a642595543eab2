// The cluster-scoped objects the proxy also watches: its own Node (as bulky as a real one's status
// is) and the default ServiceCIDR.
import { NODE_IP, NODE_NAME, SERVICE_CIDR, ZONES, type KObject } from './cluster-state';

export function nodeObject(): KObject {
  const condition = (type: string, status: string, reason: string) => ({
    type, status, reason, message: `kubelet reports ${reason}`, lastHeartbeatTime: '2025-06-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z',
  });
  const resources = { cpu: '16', 'ephemeral-storage': '104845292Ki', memory: '65842300Ki', pods: '110' };
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name: NODE_NAME,
      labels: {
        'kubernetes.io/hostname': NODE_NAME, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm6i.4xlarge', 'topology.kubernetes.io/region': 'eu-west-1', 'topology.kubernetes.io/zone': ZONES[0],
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: '10.128.0.0/24', podCIDRs: ['10.128.0.0/24'], providerID: `aws:///eu-west-1a/i-0${NODE_NAME}` },
    status: {
      addresses: [{ type: 'InternalIP', address: NODE_IP }, { type: 'Hostname', address: NODE_NAME }],
      capacity: resources, allocatable: resources,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'), condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID'), condition('Ready', 'True', 'KubeletReady'),
      ],
      nodeInfo: { kernelVersion: '6.1.0', osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://1.7.0', kubeletVersion: 'v1.31.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
      images: Array.from({ length: 20 }, (_, i) => ({ names: [`registry.example/app-${i}@sha256:${'0'.repeat(64)}`, `registry.example/app-${i}:v1`], sizeBytes: 50_000_000 + i })),
    },
  };
}

export function serviceCIDRObject(): KObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'kubernetes' }, spec: { cidrs: [SERVICE_CIDR] } };
}
