import { clause, field, list, paragraph } from '../domain/blocks';
import { checkDateOrder } from '../domain/field-checks';
import { t } from '../domain/inline';
import { formatMoney } from '../domain/money';
import type { TemplateDefinition } from '../domain/template';
import { currencyField, currencyOf, jurisdictionField, partyFields, paymentDaysField } from './parts/fields';
import { nameAndAddress, partyOf, SIGNS_FOR_AN_ORGANISATION, SIGNS_IN_PERSON } from './parts/parties';

/** A client engages a freelancer for a defined piece of work. */
export const freelanceContract: TemplateDefinition = {
  slug: 'freelance-contract',
  name: 'Freelance Services Agreement',
  description:
    'A client engages an independent freelancer for defined services and deliverables, for a fee, with ownership of the work passing to the client on payment.',
  fields: [
    ...partyFields('client', 'Client'),
    ...partyFields('freelancer', 'Freelancer'),
    field('services', 'Services and deliverables', 'text', true),
    field('startDate', 'Start date', 'date', true),
    field('endDate', 'Completion date', 'date', false),
    field('fee', 'Fee', 'amount', true),
    field('feeBasis', 'How the fee is charged (for example "per hour"; a fixed fee if empty)', 'text', false),
    currencyField,
    paymentDaysField,
    jurisdictionField({ courts: true }),
  ],
  example: {
    clientName: 'Northwind Traders Ltd',
    clientAddress: '12 Harbour Street, Bristol BS1 4RN, United Kingdom',
    freelancerName: 'Maria Silva',
    freelancerAddress: 'Rua das Flores 45, 4050-262 Porto, Portugal',
    services:
      'design of a new company logo and brand guidelines, delivered as vector files and a PDF style guide',
    startDate: '2025-04-01',
    endDate: '2025-05-15',
    fee: '4800',
    currency: 'EUR',
    paymentDays: '14',
    jurisdiction: 'Portugal',
  },
  check: (f) => checkDateOrder(f, { earlier: 'startDate', later: 'endDate', strict: false }),
  fileName: (f) => `freelance-contract-${f.req('freelancerName')}-${f.req('startDate')}`,
  compose: (f) => {
    const client = partyOf(f, 'client');
    const freelancer = partyOf(f, 'freelancer');
    const endDate = f.opt('endDate');
    const fee = formatMoney(currencyOf(f), f.req('fee'));
    const feeBasis = f.opt('feeBasis');
    const paymentDays = f.shown('paymentDays', '30');
    const jurisdiction = f.opt('jurisdiction');
    return {
      title: 'Freelance Services Agreement',
      blocks: [
        paragraph(
          t`This Freelance Services Agreement (the "Agreement") is made on ${f.req('startDate')} between ${nameAndAddress(client)} (the "Client") and ${nameAndAddress(freelancer)} (the "Freelancer").`,
        ),
        clause(
          'Services',
          t`The Freelancer shall provide to the Client the following services and deliverables (the "Services"): ${f.req('services')}`,
          t`The Freelancer shall perform the Services with reasonable skill and care, in a professional manner and in accordance with any reasonable instructions of the Client about the results to be achieved. The Freelancer decides how, where and when the work is done, and provides its own equipment.`,
          t`Any change to the Services must be agreed in writing (email is sufficient) by both parties, including any change to the fee or the timetable.`,
        ),
        clause(
          'Term',
          endDate
            ? t`This Agreement starts on ${f.req('startDate')} and continues until the Services are completed, which the Freelancer shall use reasonable efforts to achieve by ${endDate}, unless it is terminated earlier under clause 8.`
            : t`This Agreement starts on ${f.req('startDate')} and continues until the Services are completed, unless it is terminated earlier under clause 8.`,
        ),
        clause(
          'Fees and Payment',
          feeBasis
            ? t`In consideration of the Services, the Client shall pay the Freelancer ${fee} ${feeBasis}.`
            : t`In consideration of the Services, the Client shall pay the Freelancer a fixed fee of ${fee} for the Services.`,
          t`The Freelancer shall invoice the Client on completion of the Services or, for work charged by time, monthly in arrears. The Client shall pay each correct invoice within ${paymentDays} days of receiving it, by bank transfer to the account named on the invoice.`,
          t`Fees do not include value added tax, sales tax or similar taxes, which the Client shall pay in addition where they apply. Expenses are payable only if the Client has approved them in writing in advance and they are supported by receipts.`,
          t`If the Client does not pay an undisputed amount when due, the Freelancer may, after giving seven (7) days' written notice, suspend the Services until payment is made.`,
        ),
        clause(
          'Independent Contractor',
          t`The Freelancer is an independent contractor and not an employee, worker, partner or agent of the Client. The Freelancer is responsible for its own taxes, social security contributions, insurance and any licences it needs, and shall not be entitled to employee benefits from the Client.`,
          t`Nothing in this Agreement prevents the Freelancer from working for others, provided that this does not breach clause 6.`,
        ),
        clause(
          'Intellectual Property',
          t`On receipt of full payment of the fees for them, the Freelancer assigns to the Client all intellectual property rights in the deliverables created specifically for the Client under this Agreement. Until then, the Client has a licence to use the deliverables for evaluation only.`,
          t`The Freelancer keeps ownership of its pre-existing materials, tools and know-how. To the extent they are incorporated in the deliverables, the Freelancer grants the Client a non-exclusive, perpetual, royalty-free licence to use them as part of the deliverables.`,
          t`The Freelancer may show the deliverables in its portfolio once they have been made public by the Client, unless the Client objects in writing.`,
        ),
        clause(
          'Confidentiality',
          t`Each party shall keep confidential all non-public information it receives from the other party in connection with this Agreement and use it only to perform this Agreement. This obligation does not apply to information that is or becomes public other than through a breach of this clause, or that a party is required by law to disclose. This clause survives for three (3) years after this Agreement ends.`,
        ),
        clause(
          'Warranties and Liability',
          t`The Freelancer warrants that the deliverables are its original work (apart from materials identified to the Client) and that, to its knowledge, their use as agreed will not infringe the rights of any third party.`,
          t`Neither party is liable to the other for any indirect or consequential loss, or for loss of profit, revenue or data. Except for liability that cannot be limited by law, each party's total liability under this Agreement is limited to the total fees paid and payable under it.`,
        ),
        clause(
          'Termination',
          t`Either party may terminate this Agreement for convenience by giving fourteen (14) days' written notice to the other.`,
          t`Either party may terminate this Agreement at once by written notice if the other party commits a material breach that is not remedied within ten (10) days of a written request to remedy it, or becomes insolvent.`,
          t`On termination, the Client shall pay for the Services performed up to the date of termination (pro rata for a fixed fee), and the Freelancer shall deliver the work completed up to that date once it has been paid for. Clauses 5, 6, 7 and 9 survive termination.`,
        ),
        clause(
          'General',
          t`This Agreement is the entire agreement between the parties about the Services and replaces any earlier proposals or understandings about them. It may be changed only in writing signed by both parties.`,
          t`Neither party may assign this Agreement without the other's written consent. The Freelancer may not subcontract the Services without the Client's written consent.`,
          t`If any provision of this Agreement is held invalid, the rest of it remains in force. A failure to enforce a right is not a waiver of it.`,
          t`Notices must be in writing and sent to the addresses or email addresses the parties have given each other.`,
          list(
            jurisdiction
              ? t`This Agreement is governed by the laws of ${jurisdiction}, and the courts of ${jurisdiction} have exclusive jurisdiction over any dispute arising from it;`
              : t`This Agreement is governed by the laws of the place where the Client has its principal place of business, and the courts of that place have exclusive jurisdiction over any dispute arising from it;`,
            t`the parties shall first try in good faith to settle any dispute by negotiation for at least thirty (30) days before starting court proceedings.`,
          ),
        ),
      ],
      signatures: {
        intro: t`The parties have read and agree to this Agreement and sign it below.`,
        parties: [
          { role: 'Client', name: client.name, lines: SIGNS_FOR_AN_ORGANISATION },
          { role: 'Freelancer', name: freelancer.name, lines: SIGNS_IN_PERSON },
        ],
      },
    };
  },
};
