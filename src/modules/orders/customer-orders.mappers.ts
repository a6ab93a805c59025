import type { components } from '../../generated/openapi.js';
import type { Fulfillment, Order, Refund, Return } from '../../generated/prisma/client.js';
import { toFulfillmentResource, toOrderResource, toRefundResource } from './orders.mappers.js';
import { toCustomerReturnResource } from './returns.mappers.js';
import { webTrackingUrl } from './tracking-url.js';

type Schemas = components['schemas'];
export type CustomerOrderResource = Schemas['CustomerOrder'];

/** An order with its fulfilments, refunds and returns (each oldest first), as the customer's views read it. */
export interface OrderWithChildren extends Order {
  fulfillments: Fulfillment[];
  refunds: Refund[];
  returnRows: Return[];
}

/**
 * An order as its customer sees it (openapi.yaml, `CustomerOrder`): the merchant's representation without
 * customer_id (the caller), draft_order_id, cancel_reason and metafields, with its shipments (without location
 * and notify flag; a tracking URL only when http(s), else null) and refunds (without the merchant's reason and the
 * stock locations) and returns (without the merchant's location and refund link) inline.
 */
export function toCustomerOrderResource(order: OrderWithChildren): CustomerOrderResource {
  const {
    customer_id: _customer,
    draft_order_id: _draft,
    cancel_reason: _reason,
    metafields: _metafields,
    created_at,
    updated_at,
    ...visible
  } = toOrderResource(order);
  return {
    ...visible,
    fulfillments: order.fulfillments.map((row) => {
      const {
        order_id: _order,
        location_id: _location,
        notify_customer: _notify,
        ...shipment
      } = toFulfillmentResource(row);
      return { ...shipment, tracking_url: webTrackingUrl(shipment.tracking_url) };
    }),
    refunds: order.refunds.map((row) => {
      const {
        order_id: _order,
        reason: _note,
        provider: _provider,
        provider_reference: _reference,
        failure_reason: _why,
        line_items,
        ...refund
      } = toRefundResource(row, order.currency);
      return {
        ...refund,
        line_items: line_items.map(({ line_item_id, line_item_index, quantity }) => ({
          line_item_id,
          line_item_index,
          quantity,
        })),
      };
    }),
    returns: order.returnRows.map(toCustomerReturnResource),
    created_at,
    updated_at,
  };
}
