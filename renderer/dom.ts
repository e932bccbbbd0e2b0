/** Tiny DOM helpers: build elements with text (never HTML strings), so scanned or issuer data cannot inject markup. */
export type Attributes = Readonly<Record<string, string>>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) if (child !== null) element.append(child);
  return element;
}

export function replaceChildren(parent: Element, ...children: (Node | string | null)[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => c !== null));
}
