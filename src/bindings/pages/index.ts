export { createBuyerPages, isPageRequest, pageRefusal, negotiateLocale, PAGES_CSS_PATH } from './buyer-pages.js';
