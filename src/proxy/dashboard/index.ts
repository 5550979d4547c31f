export { DASHBOARD_HTML } from './page.js';
export { DASHBOARD_JS } from './script.js';
