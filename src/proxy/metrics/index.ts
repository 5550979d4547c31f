// proxy/metrics/: what the proxy measured: counters, savings, the usage read off answers, the dashboard.
export * from './dashboard/index.js';
export * from './savings.js';
export * from './stats.js';
export * from './usage-tap.js';
