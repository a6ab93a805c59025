import { describe, expect, test } from '@jest/globals';
import { checkReturnLines, receivedLines } from '../../../src/modules/orders/return-lines.js';
import { renderReturnDecision } from '../../../src/modules/orders/return-decision.email.js';
import type { OrderLineItemResource } from '../../../src/modules/orders/orders.mappers.js';

const line = (id: string, quantity: number, unitPrice: number, custom = false): OrderLineItemResource => ({
  id,
  variant_id: custom ? null : `var_${id}`,
  product_id: custom ? null : `prod_${id}`,
  title: custom ? 'Engraving' : 'Trail Runner',
  variant_title: custom ? '' : 'EU 42',
  sku: null,
  quantity,
  unit_price: unitPrice,
  total: quantity * unitPrice,
});
const items = [line('oli_a', 3, 5000), line('oli_b', 1, 2000), line('oli_c', 1, 1500, true)];
const held = (index: number, quantity: number) => ({
  line_item_id: items[index].id,
  line_item_index: index,
  quantity,
  restocked_quantity: null,
  damaged_quantity: null,
});

describe('checkReturnLines', () => {
  test('names each line by id and index; refuses a repeated line, a custom item and more units than returnable', () => {
    expect(checkReturnLines(items, [3, 1, 1], [{ line_item_id: 'oli_b', quantity: 1 }])).toEqual([held(1, 1)]);
    expect(() =>
      checkReturnLines(
        items,
        [3, 1, 1],
        [
          { line_item_index: 0, quantity: 1 },
          { line_item_id: 'oli_a', quantity: 1 },
        ],
      ),
    ).toThrow('Line item 0 is listed twice.');
    expect(() => checkReturnLines(items, [3, 1, 1], [{ line_item_id: 'oli_c', quantity: 1 }])).toThrow(
      'Line item 2 (Engraving) is a custom item: it cannot be returned; refund it directly.',
    );
    expect(() => checkReturnLines(items, [1, 1, 1], [{ line_item_id: 'oli_a', quantity: 2 }])).toThrow(
      'Line item 0 (Trail Runner - EU 42) has 1 unit that can be returned; 2 requested.',
    );
  });
});

describe('receivedLines', () => {
  test('damaged units as listed, the rest restocked; a line not in the return is refused', () => {
    expect(receivedLines(items, [held(0, 2), held(1, 1)], [{ line_item_id: 'oli_a', damaged_quantity: 1 }])).toEqual([
      { ...held(0, 2), restocked_quantity: 1, damaged_quantity: 1 },
      { ...held(1, 1), restocked_quantity: 1, damaged_quantity: 0 },
    ]);
    expect(() => receivedLines(items, [held(0, 2)], [{ line_item_index: 1, damaged_quantity: 1 }])).toThrow(
      'Line item 1 is not part of this return.',
    );
  });
});

describe('renderReturnDecision', () => {
  test('in the language asked for, with the message, every outside value escaped in the HTML', () => {
    const mail = renderReturnDecision({
      language: 'fr',
      decision: 'approved',
      storeName: 'Acme <Outdoor>',
      orderNumber: 1042,
      items: [{ name: 'Trail Runner - EU 42', quantity: 2 }],
      message: 'Renvoyez <b>la boîte</b>.',
    });
    expect(mail.subject).toBe('Votre retour pour la commande n° 1042 chez Acme <Outdoor> a été accepté');
    expect(mail.text).toContain('2 x Trail Runner - EU 42');
    expect(mail.text).toContain('Renvoyez <b>la boîte</b>.');
    expect(mail.html).toContain('Renvoyez &lt;b&gt;la boîte&lt;/b&gt;.');
    expect(mail.html).not.toContain('<b>');
  });
});
