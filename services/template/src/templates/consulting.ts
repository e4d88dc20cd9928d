import { clause, field, list, paragraph } from '../domain/blocks';
import { checkDateOrder } from '../domain/field-checks';
import { t } from '../domain/inline';
import { formatMoney } from '../domain/money';
import type { TemplateDefinition } from '../domain/template';
import {
  currencyField,
  currencyOf,
  jurisdictionField,
  noticeDaysField,
  partyFields,
  paymentDaysField,
} from './parts/fields';
import { nameAndAddress, partyOf, SIGNS_FOR_AN_ORGANISATION } from './parts/parties';

/** An ongoing advisory engagement paid at a rate, with expenses, confidentiality and non-solicitation. */
export const consulting: TemplateDefinition = {
  slug: 'consulting',
  name: 'Consulting Agreement',
  description:
    'A client retains a consultant for advisory services at an agreed rate, invoiced monthly, with expenses, confidentiality, ownership of work product and notice to end.',
  fields: [
    ...partyFields('client', 'Client'),
    ...partyFields('consultant', 'Consultant'),
    field('effectiveDate', 'Effective date', 'date', true),
    field('endDate', 'End date (open-ended if empty)', 'date', false),
    field('scope', 'Scope of the consulting services', 'text', true),
    field('rate', 'Rate', 'amount', true),
    field('rateUnit', 'Rate unit (for example "per day"; per hour if empty)', 'text', false),
    currencyField,
    paymentDaysField,
    field('expenseLimit', 'Expenses per month that need no prior approval', 'amount', false),
    noticeDaysField('Days of notice to end the agreement (30 if empty)'),
    jurisdictionField({ courts: true }),
  ],
  example: {
    clientName: 'Northwind Traders Ltd',
    consultantName: 'Priya Raman Consulting LLP',
    effectiveDate: '2025-02-10',
    endDate: '2025-12-31',
    scope:
      'advice on supply-chain analytics, including a review of current forecasting practice and a roadmap for improvement',
    rate: '1200',
    rateUnit: 'per day',
    currency: 'GBP',
    expenseLimit: '500',
    noticeDays: '30',
    jurisdiction: 'England and Wales',
  },
  check: (f) => checkDateOrder(f, { earlier: 'effectiveDate', later: 'endDate', strict: true }),
  fileName: (f) => `consulting-${f.req('consultantName')}-${f.req('effectiveDate')}`,
  compose: (f) => {
    const client = partyOf(f, 'client');
    const consultant = partyOf(f, 'consultant');
    const currency = currencyOf(f);
    const rate = formatMoney(currency, f.req('rate'));
    const rateUnit = f.shown('rateUnit', 'per hour');
    const paymentDays = f.shown('paymentDays', '30');
    const expenseLimit = f.opt('expenseLimit');
    const noticeDays = f.shown('noticeDays', '30');
    const endDate = f.opt('endDate');
    const jurisdiction = f.opt('jurisdiction');
    return {
      title: 'Consulting Agreement',
      blocks: [
        paragraph(
          t`This Consulting Agreement (the "Agreement") is made as of ${f.req('effectiveDate')} (the "Effective Date") between ${nameAndAddress(client)} (the "Client") and ${nameAndAddress(consultant)} (the "Consultant").`,
        ),
        paragraph(
          t`The Client wishes to obtain the Consultant's advice and expertise, and the Consultant is willing to provide them, on the terms of this Agreement.`,
        ),
        clause(
          'Services',
          t`The Consultant shall provide the following consulting services to the Client (the "Services"): ${f.req('scope')}`,
          t`The Consultant shall perform the Services diligently, with the skill and care of an experienced professional in its field, and shall keep the Client informed of progress. The Client shall give the Consultant the information, access and cooperation it reasonably needs.`,
          t`The Consultant determines the method, hours and place of work, and may use its own staff only with the Client's written consent, remaining responsible for them.`,
        ),
        clause(
          'Term',
          endDate
            ? t`This Agreement starts on the Effective Date and ends on ${endDate}, unless it is extended in writing or ended earlier under clause 9.`
            : t`This Agreement starts on the Effective Date and continues until it is ended under clause 9.`,
        ),
        clause(
          'Fees',
          t`The Client shall pay the Consultant ${rate} ${rateUnit} for time spent performing the Services. Time is recorded in units of no more than one quarter of an hour (or half days, for a daily rate), and the Consultant shall keep accurate records of it.`,
          t`Fees exclude value added tax, sales tax and similar taxes, which the Client shall pay in addition where they apply.`,
        ),
        clause(
          'Expenses',
          expenseLimit
            ? t`The Client shall reimburse the Consultant's reasonable travel and out-of-pocket expenses incurred in performing the Services, at cost and supported by receipts. Expenses above ${formatMoney(currency, expenseLimit)} in any month need the Client's prior written approval.`
            : t`The Client shall reimburse the Consultant's reasonable travel and out-of-pocket expenses incurred in performing the Services, at cost and supported by receipts, provided that the Client approved them in writing in advance.`,
        ),
        clause(
          'Invoicing and Payment',
          t`The Consultant shall invoice the Client monthly in arrears for the fees and expenses of the previous month, with a summary of the time spent. The Client shall pay each correct invoice within ${paymentDays} days of receiving it.`,
          t`If the Client disputes part of an invoice in good faith, it shall notify the Consultant within ten (10) days of receipt and pay the undisputed part on time. Late payments of undisputed amounts bear interest at the rate permitted by applicable law for commercial debts.`,
        ),
        clause(
          'Relationship of the Parties',
          t`The Consultant is an independent contractor. Nothing in this Agreement creates an employment, partnership, agency or joint venture relationship. The Consultant is responsible for its own taxes, insurance and social security contributions and has no authority to bind the Client.`,
          t`The Consultant may provide services to others during the Term, provided that this does not conflict with its duties under this Agreement.`,
        ),
        clause(
          'Confidentiality',
          t`The Consultant shall keep confidential all non-public information about the Client's business that it receives in connection with this Agreement, use it only to perform the Services and disclose it only to those of its staff who need it for that purpose and are bound by equivalent duties. This obligation continues for five (5) years after this Agreement ends, and indefinitely for trade secrets.`,
          t`This clause does not apply to information that is or becomes public other than through a breach of this Agreement, that the Consultant already lawfully had, or that it must disclose by law.`,
        ),
        clause(
          'Work Product',
          t`All reports, documents, analyses and other materials the Consultant creates specifically for the Client under this Agreement (the "Work Product") belong to the Client on payment of the related fees, and the Consultant assigns to the Client all intellectual property rights in them.`,
          t`The Consultant keeps its pre-existing know-how, methods and tools, and grants the Client a non-exclusive, perpetual licence to use any of them that are incorporated in the Work Product, for the Client's internal business purposes.`,
        ),
        clause(
          'Termination',
          t`Either party may end this Agreement at any time by giving the other at least ${noticeDays} days' written notice.`,
          t`Either party may end this Agreement at once by written notice if the other party:`,
          list(
            t`commits a material breach of it and does not remedy the breach within fourteen (14) days of being asked in writing to do so; or`,
            t`becomes insolvent, makes an arrangement with its creditors or ceases to carry on business.`,
          ),
          t`On termination the Client shall pay for Services performed and approved expenses incurred up to the termination date, and the Consultant shall deliver to the Client all Work Product and return all of the Client's materials. Clauses 7, 8, 10, 11 and 12 survive termination.`,
        ),
        clause(
          'Non-Solicitation',
          t`During this Agreement and for twelve (12) months after it ends, neither party shall, without the other's written consent, solicit for employment any employee of the other party with whom it had material contact in connection with the Services. General job advertisements are not solicitation.`,
        ),
        clause(
          'Warranties and Liability',
          t`Each party warrants that it has full power to enter into this Agreement. The Consultant warrants that the Services will be performed in accordance with this Agreement, but does not guarantee any particular business result.`,
          t`Neither party is liable for indirect or consequential loss, or for loss of profits, revenue, goodwill or data. Except for liability for fraud, for death or personal injury caused by negligence, for breach of clause 7, or for any other liability that cannot be limited by law, each party's total liability under this Agreement in any twelve (12) month period is limited to the fees paid and payable in that period.`,
        ),
        clause(
          'General',
          t`This Agreement is the entire agreement between the parties about its subject matter and replaces all earlier agreements and understandings about it. It may be changed only in writing signed by both parties.`,
          t`Neither party may assign or transfer this Agreement without the other's prior written consent. A failure or delay in exercising a right is not a waiver of it. If any provision is held invalid, the rest of the Agreement remains in force.`,
          t`Notices under this Agreement must be in writing and delivered by hand, by courier or by email to the addresses the parties have given each other.`,
          jurisdiction
            ? t`This Agreement is governed by the laws of ${jurisdiction}, and the courts of ${jurisdiction} have exclusive jurisdiction over any dispute arising out of or in connection with it.`
            : t`This Agreement is governed by the laws of the place where the Client has its principal place of business, and the courts of that place have exclusive jurisdiction over any dispute arising out of or in connection with it.`,
        ),
      ],
      signatures: {
        intro: t`The parties have signed this Agreement to be effective as of the Effective Date.`,
        parties: [
          { role: 'Client', name: client.name, lines: SIGNS_FOR_AN_ORGANISATION },
          { role: 'Consultant', name: consultant.name, lines: SIGNS_FOR_AN_ORGANISATION },
        ],
      },
    };
  },
};
