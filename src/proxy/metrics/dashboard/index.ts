export { DASHBOARD_HTML } from './page.js';
export { DASHBOARD_JS } from './script.js';
export { type ViewLines, viewLines } from './view-lines.js';
