/**
 * A ticket holder's name on a screen (docs/kiosk.md "Holder names"): any name the issuer accepts (80
 * characters, any script) stays whole and legible. Isolated with its own direction (`<bdi dir="auto">`),
 * so an Arabic or Hebrew name reads right to left with its spaces and does not reorder the words around
 * it; styles.css `.holder-name` wraps it to two lines and shrinks it with its length down to a minimum,
 * and only past that ends it with an ellipsis, the whole name then in `title`.
 */
import { el } from '../dom.js';

export function holderNameElement(name: string, className = ''): HTMLElement {
  const element = el('bdi', { class: `holder-name ${className}`.trim(), dir: 'auto', title: name, 'data-holder-name': '' }, name);
  // Code points, not UTF-16 units: an emoji or a rare CJK character is one character on screen.
  element.style.setProperty('--name-length', String([...name].length));
  return element;
}

/**
 * A catalogue text with the name in it ("Holder: {name}") as nodes, the name as holderNameElement:
 * the words around it stay in the catalogue, in their language's order. `text` is the translated text
 * with `{name}` left in (t(key, { name: '{name}' })).
 */
export function withHolderName(text: string, name: string): (Node | string)[] {
  const [before = '', ...rest] = text.split('{name}');
  return [before, holderNameElement(name), rest.join(name)].filter((piece) => piece !== '');
}
