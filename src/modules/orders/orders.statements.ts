import type { Columns } from '../../db/prepared.js';
import type { Order } from '../../generated/prisma/client.js';
import { sqlList } from '../../shared/sql-list.js';

const ORDER_COLUMNS: Columns<Order> = {
  id: 'id',
  projectId: 'project_id',
  orderNumber: 'order_number',
  status: 'status',
  financialStatus: 'financial_status',
  totalRefunded: 'total_refunded',
  fulfillmentStatus: 'fulfillment_status',
  cancelReason: 'cancel_reason',
  cancelledAt: 'cancelled_at',
  stockAllocations: 'stock_allocations',
  customerId: 'customer_id',
  email: 'email',
  currency: 'currency',
  lineItems: 'line_items',
  subtotal: 'subtotal',
  tax: 'tax',
  taxData: 'tax_data',
  shippingCost: 'shipping_cost',
  discount: 'discount',
  total: 'total',
  shippingAddress: 'shipping_address',
  billingAddress: 'billing_address',
  paymentTerms: 'payment_terms',
  paymentDueDate: 'payment_due_date',
  draftOrderId: 'draft_order_id',
  paidAt: 'paid_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Pages of the order list as prepared statements (src/shared/sql-list.ts). */
export const orderList = sqlList<Order>('orders', 'orders', ORDER_COLUMNS);
