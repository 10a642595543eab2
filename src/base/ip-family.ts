// The IP family as Kubernetes names it (Service.spec.ipFamilies, EndpointSlice addressType), and as
// upstream's metrics label it.
export type IPFamily = 'IPv4' | 'IPv6';
