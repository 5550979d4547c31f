// proxy/http/: HTTP plumbing: request helpers and answers, forwarding to the upstream, which upstream, who may connect (site guard, peer owner), admission.
export * from './admission.js';
export * from './forward.js';
export * from './http.js';
export * from './peer-owner.js';
export * from './proc-net-tcp.js';
export * from './site-guard.js';
export * from './upstreams.js';
