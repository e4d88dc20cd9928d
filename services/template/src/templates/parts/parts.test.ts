import { describe, expect, it } from 'vitest';
import { createFilledFields } from '../../domain/filled-fields';
import { t } from '../../domain/inline';
import { currencyOf, partyFields } from './fields';
import { nameAndAddress, partyOf } from './parties';

describe('partyFields', () => {
  it('declares a required name and an optional address, labelled by the role', () => {
    expect(partyFields('client', 'Client')).toEqual([
      { name: 'clientName', label: 'Client (full legal name)', type: 'text', required: true },
      { name: 'clientAddress', label: 'Client address', type: 'text', required: false },
    ]);
  });

  it('takes other labels, leaves the address out or adds an email', () => {
    expect(partyFields('tenant', 'Tenant', { address: false }).map((f) => f.name)).toEqual(['tenantName']);
    expect(partyFields('buyer', 'Buyer', { name: 'Buyer', address: 'Billing address', email: true })).toEqual(
      [
        { name: 'buyerName', label: 'Buyer', type: 'text', required: true },
        { name: 'buyerAddress', label: 'Billing address', type: 'text', required: false },
        { name: 'buyerEmail', label: 'Buyer email', type: 'email', required: false },
      ],
    );
  });
});

describe('a party in the text', () => {
  const fields = createFilledFields({
    clientName: 'Acme Ltd',
    clientAddress: '1 High Street',
    otherName: 'Bo',
  });

  it('is its name and address as filled values, joined by plain text', () => {
    const client = partyOf(fields, 'client');
    expect(nameAndAddress(client)).toEqual(t`${'Acme Ltd'} of ${'1 High Street'}`);
    expect(nameAndAddress(client, ', ')).toEqual(t`${'Acme Ltd'}, ${'1 High Street'}`);
  });

  it('is its name alone when no address was filled', () => {
    expect(nameAndAddress(partyOf(fields, 'other'))).toEqual(t`${'Bo'}`);
  });
});

describe('currencyOf', () => {
  it('is the filled currency, or USD', () => {
    expect(currencyOf(createFilledFields({ currency: 'EUR' }))).toBe('EUR');
    expect(currencyOf(createFilledFields({}))).toBe('USD');
  });
});
