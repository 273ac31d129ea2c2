export { createDashboard, isDashboardRequest } from './dashboard.js';
export { dashboardRefusal, DASHBOARD_CSS_PATH } from './layout.js';
export type { DashboardSessionGate } from './sign-in.js';
export type { DashboardSession } from './kit.js';
