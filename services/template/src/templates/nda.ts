import { clause, field, list, paragraph } from '../domain/blocks';
import { t } from '../domain/inline';
import type { TemplateDefinition } from '../domain/template';

/** Mutual non-disclosure agreement between two parties. */
export const nda: TemplateDefinition = {
  slug: 'nda',
  name: 'Mutual Non-Disclosure Agreement',
  description:
    'Two parties exchange confidential information to explore a business relationship and promise to keep it secret.',
  fields: [
    field('partyA', 'First party (full legal name)', 'text', true),
    field('partyB', 'Second party (full legal name)', 'text', true),
    field('effectiveDate', 'Effective date', 'date', true),
    field('jurisdiction', 'Governing law and courts (state or country)', 'text', false),
  ],
  example: {
    partyA: 'Northwind Traders Ltd',
    partyB: 'Contoso Analytics GmbH',
    effectiveDate: '2025-03-01',
    jurisdiction: 'England and Wales',
  },
  fileName: (f) => `nda-${f.req('partyA')}-${f.req('effectiveDate')}`,
  compose: (f) => {
    const partyA = f.req('partyA');
    const partyB = f.req('partyB');
    const jurisdiction = f.opt('jurisdiction');
    return {
      title: 'Mutual Non-Disclosure Agreement',
      blocks: [
        paragraph(
          t`This Mutual Non-Disclosure Agreement (the "Agreement") is entered into as of ${f.req('effectiveDate')} (the "Effective Date") by and between ${partyA} ("Party A") and ${partyB} ("Party B"). Party A and Party B are each a "Party" and together the "Parties".`,
        ),
        paragraph(
          t`The Parties wish to exchange confidential information for the purpose of evaluating, negotiating and carrying out a possible business relationship between them (the "Purpose"). In consideration of the mutual promises in this Agreement, the Parties agree as follows.`,
        ),
        clause(
          'Confidential Information',
          t`"Confidential Information" means any information disclosed by or on behalf of one Party (the "Disclosing Party") to the other Party (the "Receiving Party"), before or after the Effective Date, in writing, orally, electronically, by inspection or in any other form, that is marked or identified as confidential or that a reasonable person would understand to be confidential from its nature and the circumstances of its disclosure. It includes business plans, financial information, customer and supplier information, pricing, products, software, technical data, know-how, designs and trade secrets, and any notes, analyses or other material that contain or reflect such information.`,
          t`Confidential Information does not include information that the Receiving Party can show by written evidence:`,
          list(
            t`is or becomes publicly available through no act or omission of the Receiving Party;`,
            t`was lawfully known to the Receiving Party before its disclosure, free of any duty of confidentiality;`,
            t`is lawfully received from a third party who is entitled to disclose it without restriction; or`,
            t`is developed independently by the Receiving Party without use of or reference to the Disclosing Party's Confidential Information.`,
          ),
        ),
        clause(
          'Obligations of the Receiving Party',
          t`The Receiving Party shall:`,
          list(
            t`use the Confidential Information only for the Purpose;`,
            t`not disclose the Confidential Information to any person other than its directors, officers, employees, professional advisers and contractors who need to know it for the Purpose and who are bound by written or professional duties of confidentiality at least as protective as this Agreement (its "Representatives"); and`,
            t`protect the Confidential Information with at least the degree of care it uses for its own confidential information of a similar nature, and in no event less than reasonable care.`,
          ),
          t`The Receiving Party is responsible for any act or omission of its Representatives that would breach this Agreement if done by the Receiving Party.`,
          t`The Receiving Party shall notify the Disclosing Party in writing promptly on becoming aware of any unauthorised use or disclosure of Confidential Information and shall cooperate reasonably to limit its consequences.`,
        ),
        clause(
          'Disclosure Required by Law',
          t`If the Receiving Party is required by law, regulation, or an order of a court or other authority to disclose Confidential Information, it may disclose the part that it is legally required to disclose, provided that, where lawful, it first gives the Disclosing Party prompt written notice so that the Disclosing Party may seek a protective order or other remedy, and it cooperates reasonably with those efforts.`,
        ),
        clause(
          'Return and Destruction',
          t`Within fourteen (14) days of a written request by the Disclosing Party, and in any event on expiry or termination of this Agreement, the Receiving Party shall return or securely destroy all Confidential Information in its possession or control, including all copies, and shall confirm in writing that it has done so. The Receiving Party may keep copies that it is required by law to keep or that are held in routine electronic backups; those copies remain subject to this Agreement for as long as they are kept.`,
        ),
        clause(
          'No Licence, No Warranty, No Obligation to Proceed',
          t`All Confidential Information remains the property of the Disclosing Party. Nothing in this Agreement grants the Receiving Party any licence or other right in any patent, copyright, trade mark, trade secret or other intellectual property, except the limited right to use Confidential Information for the Purpose.`,
          t`Confidential Information is provided "as is". The Disclosing Party gives no warranty as to its accuracy or completeness.`,
          t`Nothing in this Agreement obliges either Party to enter into any further agreement or transaction.`,
        ),
        clause(
          'Term',
          t`This Agreement starts on the Effective Date and continues for two (2) years, unless either Party ends it earlier by giving the other thirty (30) days' written notice. The obligations in clauses 2 to 5 continue for three (3) years after this Agreement expires or ends, and for Confidential Information that is a trade secret, for as long as it remains a trade secret under applicable law.`,
        ),
        clause(
          'Remedies',
          t`Each Party acknowledges that unauthorised use or disclosure of Confidential Information may cause the Disclosing Party irreparable harm for which damages would not be an adequate remedy. The Disclosing Party is therefore entitled to seek an injunction, specific performance or other equitable relief, in addition to any other remedy available to it.`,
        ),
        clause(
          'General',
          t`This Agreement is the entire agreement between the Parties about its subject matter and replaces all earlier discussions and agreements about it.`,
          t`This Agreement may be changed only in writing signed by both Parties. A failure or delay in exercising a right under this Agreement does not waive that right.`,
          t`If any provision of this Agreement is held invalid or unenforceable, the other provisions remain in force and that provision applies to the greatest extent permitted.`,
          t`Neither Party may assign or transfer this Agreement without the other Party's prior written consent, except to a successor to all or substantially all of its business.`,
          t`This Agreement may be signed in counterparts and by electronic signature; each counterpart is an original and together they form one agreement.`,
        ),
        clause(
          'Governing Law and Jurisdiction',
          jurisdiction
            ? t`This Agreement and any dispute arising out of or in connection with it are governed by the laws of ${jurisdiction}. The courts of ${jurisdiction} have exclusive jurisdiction over any such dispute.`
            : t`This Agreement and any dispute arising out of or in connection with it are governed by the laws of the place where Party A has its principal place of business (or, if Party A is an individual, its habitual residence), and the courts of that place have exclusive jurisdiction over any such dispute.`,
        ),
      ],
      signatures: {
        intro: t`The Parties have signed this Agreement to be effective as of the Effective Date.`,
        parties: [
          { role: 'Party A', name: partyA, lines: ['Name', 'Title', 'Date'] },
          { role: 'Party B', name: partyB, lines: ['Name', 'Title', 'Date'] },
        ],
      },
    };
  },
};
