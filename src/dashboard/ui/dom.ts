/** An element with text children only: nothing the cluster sends is ever parsed as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes as markup.
    if (name === 'style') node.style.cssText = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}
