/** What other areas may use of store credit: spending it on a checkout, returning it on a refund, the customer's reads. */
export {
  attachCreditToOrder,
  creditToSpend,
  returnStoreCredit,
  reverseHeldCredit,
  spendStoreCredit,
  storeCreditRefundShare,
} from './store-credit.payments.js';
export { listStoreCredit, storeCreditBalance } from './store-credit.service.js';
