import { clause, field, list, paragraph } from '../domain/blocks';
import { checkDateOrder } from '../domain/field-checks';
import { t } from '../domain/inline';
import { formatMoney } from '../domain/money';
import type { TemplateDefinition } from '../domain/template';
import { currencyField, currencyOf, jurisdictionField, noticeDaysField, partyFields } from './parts/fields';
import { nameAndAddress, partyOf, SIGNS_IN_PERSON } from './parts/parties';

/** A fixed-term residential tenancy between a landlord and a tenant. */
export const lease: TemplateDefinition = {
  slug: 'lease',
  name: 'Residential Lease Agreement',
  description:
    'A fixed-term lease of a home: the property, term, rent, deposit, utilities, repairs, access and how the tenancy ends.',
  fields: [
    ...partyFields('landlord', 'Landlord', { address: 'Landlord address for notices' }),
    ...partyFields('tenant', 'Tenant', { address: false }),
    field('propertyAddress', 'Address of the leased property', 'text', true),
    field('startDate', 'Lease start date', 'date', true),
    field('endDate', 'Lease end date', 'date', true),
    field('monthlyRent', 'Monthly rent', 'amount', true),
    currencyField,
    field('rentDueDay', 'Day of the month rent is due (1 if empty)', 'integer', false, { min: 1, max: 28 }),
    field('securityDeposit', 'Security deposit', 'amount', false),
    field('lateFee', 'Late payment fee', 'amount', false),
    field('utilitiesPaidByTenant', 'Utilities the tenant pays (all if empty)', 'text', false),
    field('occupants', 'Other people allowed to live at the property', 'text', false),
    noticeDaysField('Days of notice to end or not renew (30 if empty)'),
    jurisdictionField({ courts: false }),
  ],
  example: {
    landlordName: 'Harbourview Properties LLC',
    landlordAddress: '88 Pier Road, Seattle, WA 98101',
    tenantName: 'Alex Morgan',
    propertyAddress: 'Apartment 4B, 210 Pine Street, Seattle, WA 98101',
    startDate: '2025-07-01',
    endDate: '2026-06-30',
    monthlyRent: '2350',
    securityDeposit: '2350',
    lateFee: '75',
    utilitiesPaidByTenant: 'electricity, internet and renter insurance',
    jurisdiction: 'the State of Washington',
  },
  check: (f) => checkDateOrder(f, { earlier: 'startDate', later: 'endDate', strict: true }),
  fileName: (f) => `lease-${f.req('tenantName')}-${f.req('startDate')}`,
  compose: (f) => {
    const landlord = partyOf(f, 'landlord');
    const tenant = f.req('tenantName');
    const property = f.req('propertyAddress');
    const currency = currencyOf(f);
    const rent = formatMoney(currency, f.req('monthlyRent'));
    const dueDay = f.shown('rentDueDay', '1');
    const deposit = f.opt('securityDeposit');
    const lateFee = f.opt('lateFee');
    const utilities = f.opt('utilitiesPaidByTenant');
    const occupants = f.opt('occupants');
    const noticeDays = f.shown('noticeDays', '30');
    const jurisdiction = f.opt('jurisdiction');
    return {
      title: 'Residential Lease Agreement',
      blocks: [
        paragraph(
          t`This Residential Lease Agreement (the "Lease") is made between ${nameAndAddress(landlord)} (the "Landlord") and ${tenant} (the "Tenant").`,
        ),
        clause(
          'Premises',
          t`The Landlord lets to the Tenant, and the Tenant takes from the Landlord, the residential property at ${property}, together with the fixtures, fittings and any furniture in it at the start of the Lease (the "Premises").`,
          occupants
            ? t`The Premises shall be used only as a private home by the Tenant and the following other occupants: ${occupants}`
            : t`The Premises shall be used only as a private home by the Tenant and the Tenant's immediate family.`,
        ),
        clause(
          'Term',
          t`The Lease starts on ${f.req('startDate')} and ends on ${f.req('endDate')} (the "Term"), unless it is ended earlier in accordance with this Lease or the law.`,
          t`If neither party gives the other at least ${noticeDays} days' written notice before the end of the Term that the Lease will not continue, and the Tenant remains in the Premises with the Landlord's consent, the tenancy continues from month to month on the same terms until either party ends it by giving at least ${noticeDays} days' written notice.`,
        ),
        clause(
          'Rent',
          t`The Tenant shall pay rent of ${rent} per month, in advance, on or before day ${dueDay} of each month, by bank transfer or another method the Landlord reasonably specifies in writing. Rent for any part month at the start or end of the Term is calculated pro rata.`,
          lateFee
            ? t`If rent is not received within five (5) days of its due date, the Tenant shall pay a late fee of ${formatMoney(currency, lateFee)}, to the extent permitted by law.`
            : t`Rent not paid when due remains a debt of the Tenant, and the Landlord may exercise the remedies in clause 10.`,
          t`The Landlord may not increase the rent during the Term except as agreed in writing by both parties or as permitted by law.`,
        ),
        clause(
          'Security Deposit',
          deposit
            ? t`On signing this Lease the Tenant shall pay a security deposit of ${formatMoney(currency, deposit)}, which the Landlord shall hold in accordance with applicable law.`
            : t`No security deposit is payable under this Lease.`,
          deposit !== undefined &&
            t`Within the time required by law after the Lease ends and the Tenant has returned the keys, the Landlord shall return the deposit, less any amounts reasonably needed to pay unpaid rent or to repair damage beyond normal wear and tear, with a written itemised statement of any deductions.`,
        ),
        clause(
          'Utilities',
          utilities
            ? t`The Tenant shall pay for the following utilities and services supplied to the Premises during the Term: ${utilities}. The Landlord pays for all other utilities and services.`
            : t`The Tenant shall pay for all utilities and services supplied to the Premises during the Term, including electricity, gas, water, internet, and any local taxes charged to occupiers.`,
        ),
        clause(
          'Use and Care of the Premises',
          t`The Tenant shall:`,
          list(
            t`keep the Premises clean and in good condition, and tell the Landlord promptly of any damage or need for repair;`,
            t`not cause a nuisance or disturbance to neighbours, nor use the Premises for any illegal purpose;`,
            t`not keep pets, or smoke inside the Premises, without the Landlord's prior written consent;`,
            t`not make alterations, redecorate or change the locks without the Landlord's prior written consent; and`,
            t`comply with any rules of the building and the law applying to occupiers.`,
          ),
        ),
        clause(
          'Repairs and Maintenance',
          t`The Landlord shall keep the structure and exterior of the Premises, and the installations for water, gas, electricity, sanitation, heating and hot water, in repair and proper working order, and shall carry out repairs within a reasonable time after being told of them.`,
          t`The Tenant shall pay for repairing damage caused by the Tenant, occupants or visitors, other than normal wear and tear.`,
        ),
        clause(
          'Access',
          t`The Landlord may enter the Premises at reasonable times to inspect them, carry out repairs or show them to prospective tenants or buyers, after giving the Tenant at least twenty-four (24) hours' written notice, except in an emergency.`,
        ),
        clause(
          'Assignment and Subletting',
          t`The Tenant may not assign this Lease, sublet the Premises or any part of them, or take in lodgers, without the Landlord's prior written consent, which the Landlord shall not unreasonably withhold.`,
        ),
        clause(
          'Default',
          t`If the Tenant fails to pay rent for fourteen (14) days after it is due, or seriously breaches this Lease, the Landlord may end the Lease by written notice and recover possession of the Premises, but only by the procedures required by law.`,
          t`Either party may recover from the other the reasonable costs it incurs in enforcing this Lease, to the extent permitted by law.`,
        ),
        clause(
          'End of the Lease',
          t`At the end of the Lease the Tenant shall leave the Premises clean, in the same condition as at the start apart from normal wear and tear, remove the Tenant's belongings and return all keys to the Landlord.`,
        ),
        clause(
          'General',
          landlord.address
            ? t`Notices to the Landlord must be given in writing to ${landlord.address} or by email to an address the Landlord gives the Tenant. Notices to the Tenant may be delivered to the Premises or sent by email.`
            : t`Notices must be given in writing, delivered by hand or sent by post or email to the address the receiving party has given for notices; notices to the Tenant may be delivered to the Premises.`,
          t`This Lease is the entire agreement between the parties about the letting of the Premises. It may be changed only in writing signed by both parties. If any term is invalid, the other terms remain in force. Where the law gives the Tenant rights that this Lease does not, or that cannot be excluded, the law prevails.`,
          jurisdiction
            ? t`This Lease is governed by the laws of ${jurisdiction}.`
            : t`This Lease is governed by the laws of the place where the Premises are located.`,
        ),
      ],
      signatures: {
        intro: t`The Landlord and the Tenant agree to the terms of this Lease and sign it below.`,
        parties: [
          { role: 'Landlord', name: landlord.name, lines: SIGNS_IN_PERSON },
          { role: 'Tenant', name: tenant, lines: SIGNS_IN_PERSON },
        ],
      },
    };
  },
};
