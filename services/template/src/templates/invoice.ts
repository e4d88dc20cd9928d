import { clause, details, field } from '../domain/blocks';
import { checkDateOrder } from '../domain/field-checks';
import { plain, t, type Inline } from '../domain/inline';
import { formatCents, formatMoney, percentOfCents, toMilli } from '../domain/money';
import type { Block, TemplateDefinition } from '../domain/template';
import { currencyField, currencyOf, partyFields } from './parts/fields';

const lines = (...parts: (string | undefined)[]): Inline =>
  parts.filter((p): p is string => Boolean(p)).flatMap((p, i) => (i === 0 ? t`${p}` : t`, ${p}`));

/** An invoice with line items, tax and the total due, acknowledged by the buyer. */
export const invoice: TemplateDefinition = {
  slug: 'invoice',
  name: 'Invoice',
  description:
    'A seller bills a buyer for goods or services: line items with quantities and prices, tax, the total due, the due date and how to pay.',
  fields: [
    field('invoiceNumber', 'Invoice number', 'text', true),
    field('issueDate', 'Issue date', 'date', true),
    field('dueDate', 'Due date', 'date', true),
    ...partyFields('seller', 'Seller', { email: true }),
    field('sellerTaxId', 'Seller tax or VAT number', 'text', false),
    ...partyFields('buyer', 'Buyer', { email: true }),
    field('purchaseOrder', 'Purchase order reference', 'text', false),
    currencyField,
    field('items', 'Line items (JSON array of {description, quantity, unitPrice})', 'lineItems', true),
    field('taxRate', 'Tax rate in percent', 'percent', false),
    field('paymentInstructions', 'How to pay (bank account, reference)', 'text', false),
    field('notes', 'Notes', 'text', false),
  ],
  example: {
    invoiceNumber: 'INV-2025-0042',
    issueDate: '2025-03-31',
    dueDate: '2025-04-30',
    sellerName: 'Maria Silva Design',
    sellerAddress: 'Rua das Flores 45, 4050-262 Porto, Portugal',
    sellerEmail: 'billing@mariasilva.example',
    sellerTaxId: 'PT123456789',
    buyerName: 'Northwind Traders Ltd',
    buyerAddress: '12 Harbour Street, Bristol BS1 4RN, United Kingdom',
    currency: 'EUR',
    items: JSON.stringify([
      { description: 'Logo design', quantity: 1, unitPrice: '2400.00' },
      { description: 'Brand guidelines (per page)', quantity: 12, unitPrice: '150' },
      { description: 'Revision rounds', quantity: 2.5, unitPrice: '240' },
    ]),
    taxRate: '23',
    paymentInstructions: 'IBAN PT50 0002 0123 1234 5678 9015 4, reference INV-2025-0042',
  },
  check: (f) => checkDateOrder(f, { earlier: 'issueDate', later: 'dueDate', strict: false }),
  fileName: (f) => `invoice-${f.req('invoiceNumber')}-${f.req('issueDate')}`,
  compose: (f) => {
    const currency = currencyOf(f);
    const items = f.items('items');
    const subtotal = items.reduce((sum, item) => sum + item.amountCents, 0n);
    const taxRate = f.opt('taxRate');
    const tax = taxRate ? percentOfCents(subtotal, toMilli(taxRate)) : 0n;
    const total = formatMoney(currency, formatCents(subtotal + tax));
    const purchaseOrder = f.opt('purchaseOrder');
    const instructions = f.opt('paymentInstructions');
    const notes = f.opt('notes');
    const taxId = f.opt('sellerTaxId');
    const blocks: (Block | false)[] = [
      details(
        { label: 'Invoice number', value: t`${f.req('invoiceNumber')}` },
        { label: 'Issue date', value: t`${f.req('issueDate')}` },
        { label: 'Due date', value: t`${f.req('dueDate')}` },
        purchaseOrder !== undefined && { label: 'Purchase order', value: t`${purchaseOrder}` },
        {
          label: 'From (seller)',
          value: lines(f.req('sellerName'), f.opt('sellerAddress'), f.opt('sellerEmail')),
        },
        taxId !== undefined && { label: 'Tax / VAT number', value: t`${taxId}` },
        {
          label: 'Bill to (buyer)',
          value: lines(f.req('buyerName'), f.opt('buyerAddress'), f.opt('buyerEmail')),
        },
      ),
      {
        kind: 'table',
        columns: [
          { header: 'Description', width: 0.5, align: 'left' },
          { header: 'Quantity', width: 0.14, align: 'right' },
          { header: `Unit price (${currency})`, width: 0.18, align: 'right' },
          { header: `Amount (${currency})`, width: 0.18, align: 'right' },
        ],
        rows: items.map((item) => [
          t`${item.description}`,
          plain(item.quantity),
          plain(item.unitPrice),
          plain(item.amount),
        ]),
        totals: [
          { label: 'Subtotal', value: plain(formatMoney(currency, formatCents(subtotal))) },
          ...(taxRate
            ? [{ label: `Tax (${taxRate}%)`, value: plain(formatMoney(currency, formatCents(tax))) }]
            : []),
          { label: 'Total due', value: plain(total), strong: true },
        ],
      },
      clause(
        'Payment Terms',
        t`The Buyer shall pay the total due of ${total} by ${f.req('dueDate')}${purchaseOrder ? t`, quoting invoice number ${f.req('invoiceNumber')} and purchase order ${purchaseOrder}` : t`, quoting invoice number ${f.req('invoiceNumber')}`}.`,
        instructions
          ? t`Payment instructions: ${instructions}`
          : t`Payment is to be made by bank transfer to the account the Seller has notified to the Buyer in writing.`,
        t`Amounts not paid by the due date may bear interest at the rate permitted by applicable law for late commercial payments, and the Seller may recover its reasonable costs of collection. Any query about this invoice must be raised with the Seller in writing within fourteen (14) days of its issue date.`,
      ),
      notes !== undefined && clause('Notes', t`${notes}`),
    ];
    return {
      title: 'Invoice',
      subtitle: t`No. ${f.req('invoiceNumber')}`,
      blocks: blocks.filter((block) => block !== false),
      signatures: {
        intro: t`Issued by the Seller. The Buyer's signature acknowledges receipt of this invoice and of the goods or services listed in it.`,
        parties: [
          { role: 'Issued by (seller)', name: f.req('sellerName'), lines: ['Name', 'Date'] },
          { role: 'Received by (buyer)', name: f.req('buyerName'), lines: ['Name', 'Date'] },
        ],
      },
    };
  },
};
