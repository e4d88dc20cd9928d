import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFContext, PDFName, PDFObject, PDFRef } from 'pdf-lib';

/**
 * Which objects of a loaded document changed, recorded as they change, for an incremental update
 * (which writes only those). pdf-lib's objects change through a few methods: a dictionary's `set`
 * and `delete`, an array's `push`, `insert`, `remove` and `set`, and the context's `assign` (which
 * `register` calls). Those are wrapped here: once `trackChanges` has been called on a context, each
 * records the dictionary or array it changed, or the reference it assigned, in the context's log.
 * An indirect object is then written when its number is new, when it was assigned anew, or when it
 * or a dictionary, array or stream dictionary written inside it (not behind a reference) changed.
 *
 * This replaces recording how every object looked (its serialisation) before signing and comparing
 * every object with it again after: for a document with many signatures that was two serialisations
 * of every object, every earlier signature's /Contents included, per revision. Setting an entry to a
 * value it already has (the same object, or a number equal to it) is not a change; anything else
 * that is counts as one, so the update may hold an object that ends up looking as it did, never lack
 * one that changed.
 */
// The build of pdf-lib that Node loads (its "main": CommonJS), whose objects the signer changes.
const {
  PDFArray,
  PDFContext: Context,
  PDFDict,
  PDFNumber,
  PDFStream,
} = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;

/** What changed in one document since `trackChanges`. */
export interface ChangeLog {
  /** Numbers above this are objects added since (pdf-lib numbers new objects upwards). */
  readonly largestOriginal: number;
  /** Dictionaries and arrays changed in place. */
  readonly changed: Set<PdfLib.PDFDict | PdfLib.PDFArray>;
  /** Original numbers given another object. */
  readonly assigned: Set<PDFRef>;
}

const LOG = Symbol('changeLog');
type Tracked = { [LOG]?: ChangeLog };

const logOf = (context: unknown): ChangeLog | undefined => (context as Tracked | undefined)?.[LOG];

/** Start recording changes to the document of `context` (call once it is loaded). */
export const trackChanges = (context: PDFContext): ChangeLog => {
  const log: ChangeLog = {
    largestOriginal: context.largestObjectNumber,
    changed: new Set(),
    assigned: new Set(),
  };
  (context as unknown as Tracked)[LOG] = log;
  return log;
};

const same = (before: PDFObject | undefined, after: PDFObject): boolean =>
  before === after ||
  (before instanceof PDFNumber && after instanceof PDFNumber && before.asNumber() === after.asNumber());

/** The parts of pdf-lib's dictionaries and arrays wrapped here (`dict` and `array` are private in its types). */
interface Dict {
  readonly context: unknown;
  readonly dict: Map<PDFName, PDFObject>;
  set: (this: Dict, key: PDFName, value: PDFObject) => void;
  delete: (this: Dict, key: PDFName) => boolean;
}
interface List {
  readonly context: unknown;
  readonly array: PDFObject[];
  push: (this: List, object: PDFObject) => void;
  insert: (this: List, index: number, object: PDFObject) => void;
  remove: (this: List, index: number) => void;
  set: (this: List, index: number, object: PDFObject) => void;
}

const dict = PDFDict.prototype as unknown as Dict;
const { set: dictSet, delete: dictDelete } = dict;
dict.set = function set(this: Dict, key, value) {
  const log = logOf(this.context);
  if (log && !same(this.dict.get(key), value)) log.changed.add(this as unknown as PdfLib.PDFDict);
  dictSet.call(this, key, value);
};
dict.delete = function remove(this: Dict, key) {
  const log = logOf(this.context);
  if (log && this.dict.has(key)) log.changed.add(this as unknown as PdfLib.PDFDict);
  return dictDelete.call(this, key);
};

const list = PDFArray.prototype as unknown as List;
const { push, insert, remove, set: listSet } = list;
const changedList = (array: List) => logOf(array.context)?.changed.add(array as unknown as PdfLib.PDFArray);
list.push = function (this: List, object) {
  changedList(this);
  push.call(this, object);
};
list.insert = function (this: List, index, object) {
  changedList(this);
  insert.call(this, index, object);
};
list.remove = function (this: List, index) {
  changedList(this);
  remove.call(this, index);
};
list.set = function (this: List, index, object) {
  if (!same(this.array[index], object)) changedList(this);
  listSet.call(this, index, object);
};

const context = Context.prototype as unknown as {
  assign: (this: PDFContext, ref: PDFRef, object: PDFObject) => void;
};
const { assign } = context;
context.assign = function (this: PDFContext, ref, object) {
  const log = logOf(this);
  if (log && ref.objectNumber <= log.largestOriginal) log.assigned.add(ref);
  assign.call(this, ref, object);
};

/** True when `object` holds, without following references, a dictionary or array in `changed`. */
const holdsChange = (changed: ChangeLog['changed'], object: PDFObject): boolean => {
  if (object instanceof PDFStream) return holdsChange(changed, object.dict);
  if (object instanceof PDFDict) {
    if (changed.has(object)) return true;
    for (const value of (object as unknown as Dict).dict.values())
      if (holdsChange(changed, value)) return true;
    return false;
  }
  if (object instanceof PDFArray) {
    if (changed.has(object)) return true;
    for (const value of (object as unknown as List).array) if (holdsChange(changed, value)) return true;
  }
  return false;
};

/** True when the update must write the indirect object `ref` (now `object`): new, assigned anew or changed. */
export const isChanged = (log: ChangeLog, ref: PDFRef, object: PDFObject): boolean =>
  ref.objectNumber > log.largestOriginal ||
  log.assigned.has(ref) ||
  (log.changed.size > 0 && holdsChange(log.changed, object));
