/** What other areas may use of customer groups: the members filter of the customer list, the groups of a customer (price lists, discounts). */
export { customerGroupIds, groupMembersWhere, groupPriceKeys } from './membership.js';
export { createGroup } from './customer-groups.service.js';
export { addMembers } from './members.service.js';
