import { TemplateGenerate } from '@esign/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type TemplateHarness } from './helpers';

let harness: TemplateHarness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

const nda = { partyA: 'Acme Ltd', partyB: 'Jane Roe', effectiveDate: '2025-03-01' };
const invoice = {
  invoiceNumber: 'INV-1',
  issueDate: '2025-03-01',
  dueDate: '2025-03-31',
  sellerName: 'Seller Co',
  buyerName: 'Buyer Co',
  items: '[{"description":"Work","quantity":1,"unitPrice":"100"}]',
};
const lease = {
  landlordName: 'L',
  tenantName: 'T',
  propertyAddress: '1 Main St',
  startDate: '2025-01-01',
  endDate: '2025-12-31',
  monthlyRent: '1000',
};

const generate = (slug: string, fields: Record<string, string>) =>
  harness.client.request(TemplateGenerate, { accountId: harness.accountId, slug, fields });

describe('template.generate refuses', () => {
  it('an unknown slug as not_found on slug', async () => {
    await expect(generate('will', nda)).rejects.toMatchObject({
      code: 'not_found',
      field: 'slug',
      message: expect.stringContaining('unknown template "will"') as unknown,
    });
  });

  it.each([
    [
      'a missing required field',
      'nda',
      { partyA: 'Acme Ltd', effectiveDate: '2025-03-01' },
      'partyB',
      /fields\.partyB is required/,
    ],
    ['a required field left empty', 'nda', { ...nda, partyA: '   ' }, 'partyA', /fields\.partyA is required/],
    [
      'an unknown field',
      'nda',
      { ...nda, favouriteColour: 'blue' },
      'favouriteColour',
      /fields\.favouriteColour is not a field of template "nda"/,
    ],
    [
      'a date that does not exist',
      'nda',
      { ...nda, effectiveDate: '2025-02-30' },
      'effectiveDate',
      /fields\.effectiveDate must be a real calendar date/,
    ],
    [
      'a date in another format',
      'nda',
      { ...nda, effectiveDate: '03/01/2025' },
      'effectiveDate',
      /YYYY-MM-DD/,
    ],
    [
      'a date with a time',
      'nda',
      { ...nda, effectiveDate: '2025-03-01T10:00:00Z' },
      'effectiveDate',
      /YYYY-MM-DD/,
    ],
    [
      'a negative amount',
      'lease',
      { ...lease, monthlyRent: '-1000' },
      'monthlyRent',
      /fields\.monthlyRent must be a non-negative amount/,
    ],
    [
      'an amount with three decimals',
      'lease',
      { ...lease, monthlyRent: '10.505' },
      'monthlyRent',
      /at most two decimals/,
    ],
    [
      'an amount that is not a number',
      'lease',
      { ...lease, securityDeposit: 'one thousand' },
      'securityDeposit',
      /non-negative amount/,
    ],
    [
      'a whole number out of range',
      'lease',
      { ...lease, rentDueDay: '31' },
      'rentDueDay',
      /fields\.rentDueDay must be a whole number from 1 to 28/,
    ],
    [
      'an end date before the start date',
      'lease',
      { ...lease, endDate: '2024-12-31' },
      'endDate',
      /fields\.endDate must be after fields\.startDate/,
    ],
    [
      'a currency that is not an ISO code',
      'invoice',
      { ...invoice, currency: 'dollars' },
      'currency',
      /ISO 4217/,
    ],
    [
      'an email that is not one',
      'invoice',
      { ...invoice, buyerEmail: 'buyer-at-example' },
      'buyerEmail',
      /fields\.buyerEmail must be an email address/,
    ],
    [
      'a percentage above 100',
      'invoice',
      { ...invoice, taxRate: '120' },
      'taxRate',
      /fields\.taxRate must be a percentage/,
    ],
    [
      'line items that are not JSON',
      'invoice',
      { ...invoice, items: 'Work, 1, 100' },
      'items',
      /fields\.items must be a JSON-encoded array/,
    ],
    [
      'an empty list of line items',
      'invoice',
      { ...invoice, items: '[]' },
      'items',
      /fields\.items must be a JSON-encoded array/,
    ],
    [
      'a line item with a negative price',
      'invoice',
      { ...invoice, items: '[{"description":"Work","quantity":1,"unitPrice":-5}]' },
      'items',
      /fields\.items\[0\]\.unitPrice must be a non-negative amount/,
    ],
    [
      'a line item without a description',
      'invoice',
      { ...invoice, items: '[{"quantity":1,"unitPrice":"5"}]' },
      'items',
      /fields\.items\[0\]\.description is required/,
    ],
    [
      'a line item with a zero quantity',
      'invoice',
      { ...invoice, items: '[{"description":"W","quantity":0,"unitPrice":"5"}]' },
      'items',
      /quantity must be a positive number/,
    ],
    [
      'a due date before the issue date',
      'invoice',
      { ...invoice, dueDate: '2025-02-01' },
      'dueDate',
      /fields\.dueDate must be on or after fields\.issueDate/,
    ],
    [
      'an offer that expires after the start date',
      'employment-offer',
      {
        employerName: 'E',
        candidateName: 'C',
        jobTitle: 'J',
        startDate: '2025-05-01',
        salary: '1',
        offerExpiryDate: '2025-06-01',
      },
      'offerExpiryDate',
      /fields\.offerExpiryDate must be on or before fields\.startDate/,
    ],
    [
      'a character no font can print',
      'nda',
      { ...nda, partyA: 'Acme 🚀 Ltd' },
      'partyA',
      /fields\.partyA .*cannot be printed: "🚀" \(U\+1F680\)/,
    ],
    [
      'a control character',
      'nda',
      { ...nda, partyB: 'Jane\u0007Roe' },
      'partyB',
      /fields\.partyB contains a control character \(U\+0007\)/,
    ],
    [
      'a value longer than 5000 characters',
      'nda',
      { ...nda, jurisdiction: 'x'.repeat(5001) },
      'jurisdiction',
      /fields\.jurisdiction must be at most 5000 characters/,
    ],
  ])('%s, naming the field', async (_case, slug, fields, field, message) => {
    await expect(generate(slug, fields)).rejects.toMatchObject({
      code: 'invalid_argument',
      field: `fields.${field}`,
      message: expect.stringMatching(message) as unknown,
    });
  });
});

describe('template.generate accepts', () => {
  it('leap days, amounts without decimals, lowercase currency codes and numbers given as strings', async () => {
    const { reply } = await harness.generate('invoice', {
      ...invoice,
      issueDate: '2024-02-29',
      dueDate: '2024-03-29',
      currency: 'eur',
      items: '[{"description":"Work","quantity":"2","unitPrice":100}]',
      taxRate: '0',
    });
    expect(reply.pageCount).toBeGreaterThan(0);
  });
});
