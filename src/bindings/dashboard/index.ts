export { createDashboard, isDashboardRequest, dashboardRefusal, DASHBOARD_CSS_PATH } from './dashboard.js';
export type { DashboardSessions, DashboardSession } from './dashboard.js';
