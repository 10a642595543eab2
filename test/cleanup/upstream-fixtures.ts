// Rules of upstream kube-proxy's shape (iptables mode v1.34: pkg/proxy/iptables/proxier.go's
// syncProxyRules; IPVS mode: pkg/proxy/ipvs/proxier.go's writeIptablesRules and ipsetInfo) for
// iptables-nft-restore, interleaved with rules of other owners (Docker, a plain ACCEPT, kubelet's
// KUBE-FIREWALL and KUBE-KUBELET-CANARY). FOREIGN_* hold only the other owners' lines, in the same
// order: what must be left, byte for byte, once --cleanup ran.

const SVC = 'KUBE-SVC-NPX46M4PTMTKRN6Y';
const SEP_A = 'KUBE-SEP-IT2ZTR26TO4XFPTO';
const SEP_B = 'KUBE-SEP-UDCK4ROXGYCRNSNF';
const WEB = 'KUBE-SVC-ZM4FEZDPTXHEB4RL';
const WEB_EXT = 'KUBE-EXT-ZM4FEZDPTXHEB4RL';
const WEB_SVL = 'KUBE-SVL-ZM4FEZDPTXHEB4RL';
const WEB_FW = 'KUBE-FW-ZM4FEZDPTXHEB4RL';
const WEB_SEP = 'KUBE-SEP-6E7XQMQ4RAYOWTTM';

/** [line, ours]: `ours` lines are upstream kube-proxy's. */
type Line = [string, boolean];
const k = (l: string): Line => [l, true];
const f = (l: string): Line => [l, false];

const IPTABLES_MODE_V4: Line[] = [
  f('*nat'),
  f(':PREROUTING ACCEPT [0:0]'), f(':INPUT ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'), f(':POSTROUTING ACCEPT [0:0]'),
  f(':DOCKER - [0:0]'),
  ...[
    'KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ', 'KUBE-PROXY-CANARY',
    SVC, SEP_A, SEP_B, WEB, WEB_EXT, WEB_SVL, WEB_FW, WEB_SEP,
  ].map((c) => k(`:${c} - [0:0]`)),
  f(':KUBE-KUBELET-CANARY - [0:0]'),
  k('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  f('-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER'),
  k('-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  f('-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER'),
  k('-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING'),
  f('-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE'),
  f('-A DOCKER -i docker0 -j RETURN'),
  k('-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000'),
  k('-A KUBE-NODEPORTS -p tcp -m comment --comment "default/web:http" -m tcp --dport 30080 -j ' + WEB_EXT),
  k('-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN'),
  k('-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0'),
  k('-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully'),
  k(`-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j ${SVC}`),
  k(`-A KUBE-SERVICES -d 10.96.0.20/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j ${WEB}`),
  k(`-A KUBE-SERVICES -d 203.0.113.7/32 -p tcp -m comment --comment "default/web:http loadbalancer IP" -m tcp --dport 80 -j ${WEB_FW}`),
  k('-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS'),
  k(`-A ${SVC} ! -s 10.244.0.0/16 -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-MARK-MASQ`),
  k(`-A ${SVC} -m comment --comment "default/kubernetes:https -> 172.18.0.2:6443" -m statistic --mode random --probability 0.50000000000 -j ${SEP_A}`),
  k(`-A ${SVC} -m comment --comment "default/kubernetes:https -> 172.18.0.3:6443" -j ${SEP_B}`),
  k(`-A ${SEP_A} -s 172.18.0.2/32 -m comment --comment "default/kubernetes:https" -j KUBE-MARK-MASQ`),
  k(`-A ${SEP_A} -p tcp -m comment --comment "default/kubernetes:https" -m tcp -j DNAT --to-destination 172.18.0.2:6443`),
  k(`-A ${SEP_B} -s 172.18.0.3/32 -m comment --comment "default/kubernetes:https" -j KUBE-MARK-MASQ`),
  k(`-A ${SEP_B} -p tcp -m comment --comment "default/kubernetes:https" -m tcp -j DNAT --to-destination 172.18.0.3:6443`),
  k(`-A ${WEB} -m comment --comment "default/web:http -> 10.244.1.5:8080" -j ${WEB_SEP}`),
  k(`-A ${WEB_EXT} -s 10.244.0.0/16 -m comment --comment "pod traffic for default/web:http external destinations" -j ${WEB}`),
  k(`-A ${WEB_EXT} -m comment --comment "masquerade LOCAL traffic for default/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`),
  k(`-A ${WEB_EXT} -j ${WEB_SVL}`),
  k(`-A ${WEB_FW} -s 198.51.100.0/24 -m comment --comment "default/web:http loadbalancer IP" -j ${WEB_EXT}`),
  k(`-A ${WEB_FW} -m comment --comment "other traffic to default/web:http will be dropped by KUBE-PROXY-FIREWALL" -j RETURN`),
  k(`-A ${WEB_SVL} -m comment --comment "default/web:http -> 10.244.1.5:8080" -j ${WEB_SEP}`),
  k(`-A ${WEB_SEP} -s 10.244.1.5/32 -m comment --comment "default/web:http" -j KUBE-MARK-MASQ`),
  k(`-A ${WEB_SEP} -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.5:8080`),
  f('COMMIT'),
  f('*filter'),
  f(':INPUT ACCEPT [0:0]'), f(':FORWARD ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'),
  f(':DOCKER - [0:0]'), f(':KUBE-FIREWALL - [0:0]'), f(':KUBE-KUBELET-CANARY - [0:0]'),
  ...['KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-CANARY', 'KUBE-PROXY-FIREWALL', 'KUBE-SERVICES']
    .map((c) => k(`:${c} - [0:0]`)),
  k('-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL'),
  k('-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS'),
  k('-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES'),
  f('-A INPUT -j KUBE-FIREWALL'),
  f('-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT'),
  k('-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL'),
  k('-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD'),
  k('-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  k('-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES'),
  f('-A FORWARD -o docker0 -j DOCKER'),
  k('-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL'),
  k('-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  f('-A OUTPUT -j KUBE-FIREWALL'),
  f('-A DOCKER -d 172.17.0.2/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport 80 -j ACCEPT'),
  f('-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'),
  k('-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP'),
  k('-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT'),
  k('-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'),
  k('-A KUBE-PROXY-FIREWALL -d 203.0.113.7/32 -p tcp -m comment --comment "default/web:http traffic not accepted by KUBE-FW-ZM4FEZDPTXHEB4RL" -m tcp --dport 80 -j DROP'),
  k('-A KUBE-SERVICES -d 10.96.0.99/32 -p tcp -m comment --comment "default/empty:http has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable'),
  f('COMMIT'),
  f('*mangle'),
  f(':PREROUTING ACCEPT [0:0]'), f(':INPUT ACCEPT [0:0]'), f(':FORWARD ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'), f(':POSTROUTING ACCEPT [0:0]'),
  f(':KUBE-KUBELET-CANARY - [0:0]'), k(':KUBE-PROXY-CANARY - [0:0]'),
  f('-A PREROUTING -i eth9 -j MARK --set-xmark 0x1/0xffffffff'),
  f('COMMIT'),
];

const IPTABLES_MODE_V6: Line[] = [
  f('*nat'),
  f(':PREROUTING ACCEPT [0:0]'), f(':INPUT ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'), f(':POSTROUTING ACCEPT [0:0]'),
  k(':KUBE-SERVICES - [0:0]'), k(`:${SVC} - [0:0]`), k(`:${SEP_A} - [0:0]`),
  k('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  f('-A PREROUTING -p tcp -m tcp --dport 8443 -j REDIRECT --to-ports 443'),
  k(`-A KUBE-SERVICES -d fd00:10:96::1/128 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j ${SVC}`),
  k(`-A ${SVC} -m comment --comment "default/kubernetes:https -> [fd00::2]:6443" -j ${SEP_A}`),
  k(`-A ${SEP_A} -p tcp -m comment --comment "default/kubernetes:https" -m tcp -j DNAT --to-destination [fd00::2]:6443`),
  f('COMMIT'),
];

// The IPVS mode: ipsets matched from its nat and filter chains (writeIptablesRules).
export const IPVS_MODE_IPSETS = [
  'create KUBE-CLUSTER-IP hash:ip,port family inet',
  'create KUBE-LOOP-BACK hash:ip,port,ip family inet',
  'create KUBE-NODE-PORT-TCP bitmap:port range 0-65535',
  'create KUBE-LOAD-BALANCER hash:ip,port family inet',
  'create KUBE-6-CLUSTER-IP hash:ip,port family inet6',
  'create KUBE-HEALTH-CHECK-NODE-PORT bitmap:port range 0-65535',
  'create KUBE-IPVS-IPS hash:ip family inet',
  'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
];
/** Another owner's sets: one of its own, and upstream's KUBE-EXTERNAL-IP, matched by its own rule. */
export const FOREIGN_IPSETS = ['create other-set hash:ip family inet', 'create KUBE-EXTERNAL-IP hash:ip,port family inet'];

const IPVS_MODE_V4: Line[] = [
  f('*nat'),
  f(':PREROUTING ACCEPT [0:0]'), f(':INPUT ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'), f(':POSTROUTING ACCEPT [0:0]'),
  f(':CNI-OTHER - [0:0]'),
  ...['KUBE-SERVICES', 'KUBE-POSTROUTING', 'KUBE-NODE-PORT', 'KUBE-LOAD-BALANCER', 'KUBE-MARK-MASQ'].map((c) => k(`:${c} - [0:0]`)),
  k('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  f('-A PREROUTING -m set --match-set other-set src -j CNI-OTHER'),
  k('-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'),
  k('-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING'),
  f('-A CNI-OTHER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j ACCEPT'),
  k('-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ'),
  k('-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000'),
  k('-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ'),
  k('-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE'),
  k('-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN'),
  k('-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0'),
  k('-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully'),
  k('-A KUBE-SERVICES -m comment --comment "Kubernetes service lb portal" -m set --match-set KUBE-LOAD-BALANCER dst,dst -j KUBE-LOAD-BALANCER'),
  k('-A KUBE-SERVICES ! -s 10.244.0.0/16 -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ'),
  k('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT'),
  k('-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT'),
  f('COMMIT'),
  f('*filter'),
  f(':INPUT ACCEPT [0:0]'), f(':FORWARD ACCEPT [0:0]'), f(':OUTPUT ACCEPT [0:0]'),
  ...['KUBE-FORWARD', 'KUBE-NODE-PORT', 'KUBE-PROXY-FIREWALL', 'KUBE-SOURCE-RANGES-FIREWALL', 'KUBE-IPVS-FILTER', 'KUBE-IPVS-OUT-FILTER']
    .map((c) => k(`:${c} - [0:0]`)),
  k('-A INPUT -m comment --comment "kubernetes health check rules" -j KUBE-NODE-PORT'),
  k('-A INPUT -m comment --comment "kube-proxy firewall rules" -j KUBE-PROXY-FIREWALL'),
  k('-A INPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-FILTER'),
  f('-A INPUT -i lo -j ACCEPT'),
  k('-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD'),
  k('-A FORWARD -m comment --comment "kube-proxy firewall rules" -j KUBE-PROXY-FIREWALL'),
  k('-A OUTPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-OUT-FILTER'),
  k('-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT'),
  k('-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN'),
  k('-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN'),
  k('-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT --reject-with icmp-port-unreachable'),
  k('-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT'),
  k('-A KUBE-PROXY-FIREWALL -m set --match-set KUBE-LOAD-BALANCER dst,dst -j KUBE-SOURCE-RANGES-FIREWALL'),
  k('-A KUBE-SOURCE-RANGES-FIREWALL -j DROP'),
  f('COMMIT'),
];

const text = (lines: Line[]) => lines.map(([l]) => l).join('\n') + '\n';
const foreign = (lines: Line[]) => lines.filter(([, ours]) => !ours).map(([l]) => l).join('\n') + '\n';

export const IPTABLES_MODE = { v4: text(IPTABLES_MODE_V4), v6: text(IPTABLES_MODE_V6) };
export const IPTABLES_MODE_FOREIGN = { v4: foreign(IPTABLES_MODE_V4), v6: foreign(IPTABLES_MODE_V6) };
export const IPVS_MODE = text(IPVS_MODE_V4);
export const IPVS_MODE_FOREIGN = foreign(IPVS_MODE_V4);
