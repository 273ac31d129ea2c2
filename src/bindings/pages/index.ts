export { createBuyerPages, isPageRequest, pageRefusal } from './buyer-pages.js';
export { negotiateLocale, PAGES_CSS_PATH } from './page-kit.js';
