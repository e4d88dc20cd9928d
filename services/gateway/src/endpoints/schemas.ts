// The OpenAPI document lists the public schemas in the order `named()` registered them, and the SDK's
// generated types follow that order: the modules that declare them are loaded here, before any
// endpoint, in the order of the document. A new resource's schemas go at the end.
import '../api/error-schema';
import './documents.schemas';
import './templates.schemas';
import './sandbox.schemas';
import './sign.schemas';
import './webhooks.schemas';
import './account.schemas';
import './keys.schemas';
import './dashboard.schemas';
import './sign-in-link.schemas';
import './verify.schemas';
import './send.schemas';
import './signing-page.schemas';
