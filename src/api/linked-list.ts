/**
 * A doubly linked list whose nodes forget everything when removed, for the long-lived
 * collections of short-lived values on the request path: a transport's requests in flight and
 * a signal's abort watchers.
 *
 * A `Set` was used first and cost a quarter of the apply phase's GC (issue 6). The Set lives as
 * long as the reconcile, so its table sits in the old generation; each rehash leaves the old
 * table behind, full of pointers to the requests of that moment, and V8's young-generation
 * collector treats every pointer from the old generation as live until the next full
 * collection, dead table or not. A fifth of each request's garbage was promoted that way. A
 * removed node points at nothing.
 */

export interface ListNode<T> {
  /** undefined once removed. */
  value: T | undefined;
  prev: ListNode<T> | undefined;
  next: ListNode<T> | undefined;
}

export class LinkedList<T> {
  #head: ListNode<T> | undefined;
  #tail: ListNode<T> | undefined;

  /** The oldest value, if any. */
  peek(): T | undefined {
    return this.#head?.value;
  }

  isEmpty(): boolean {
    return this.#head === undefined;
  }

  /** Appends `value`; the node is what `remove` takes. */
  push(value: T): ListNode<T> {
    const node: ListNode<T> = { value, prev: this.#tail, next: undefined };
    if (this.#tail === undefined) this.#head = node;
    else this.#tail.next = node;
    this.#tail = node;
    return node;
  }

  /** Unlinks `node` and clears it; a node already removed is left alone. */
  remove(node: ListNode<T>): void {
    if (node.value === undefined) return;
    if (node.prev === undefined) this.#head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.#tail = node.prev;
    else node.next.prev = node.prev;
    node.value = undefined;
    node.prev = undefined;
    node.next = undefined;
  }

  /** Removes every value and returns them, oldest first. */
  drain(): T[] {
    const values: T[] = [];
    while (this.#head !== undefined) {
      values.push(this.#head.value as T);
      this.remove(this.#head);
    }
    return values;
  }
}
