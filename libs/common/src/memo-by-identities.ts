/** One node per object on the path: the same objects in the same order reach the same node. */
interface Node<T> {
  value?: { v: T };
  next?: WeakMap<object, Node<T>>;
}

/**
 * A value computed once per list of objects, found by the objects' identities, for lists rebuilt every
 * turn from objects that are built once and never changed (the registry's tool definitions: their JSON
 * is ~5 KB, stringified and counted or hashed ~30 µs a time). A list holding anything but objects is
 * computed every time. Entries go with their objects (WeakMaps).
 */
export class MemoByIdentities<T> {
  private readonly root: Node<T> = {};

  constructor(private readonly compute: (list: readonly unknown[]) => T) {}

  get(list: readonly unknown[]): T {
    let node = this.root;
    for (const item of list) {
      if (typeof item !== 'object' || item === null) return this.compute(list);
      node.next ??= new WeakMap();
      let child = node.next.get(item);
      if (!child) {
        child = {};
        node.next.set(item, child);
      }
      node = child;
    }
    node.value ??= { v: this.compute(list) };
    return node.value.v;
  }
}
