/** What other areas may use of customers. */
export { findCustomer, insertCustomer, updateCustomer } from './customers.service.js';
export { toAddressResource, toCustomerResource } from './customers.mappers.js';
export { createCustomer } from './customers.service.js';
export {
  createAddress,
  deleteAddress,
  getAddress,
  listAddresses,
  updateAddress,
  type AddressOwner,
} from './addresses.service.js';
