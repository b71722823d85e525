// Public surface of src/dashboard/ (`svc/dashboard`): the web UI's server — its static files and
// a GET-only proxy of the cluster with the user's credential (docs/dashboard.md#the-dashboard).
export { CONTROLLERS_LIVE_PATH, DEFAULT_DASHBOARD_PORT, startDashboard } from './dashboard-server.js';
export type { Dashboard, DashboardOptions } from './dashboard-server.js';
export { bundleUi } from './ui-bundle.js';
