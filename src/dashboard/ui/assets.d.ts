// esbuild loads .css as text (ui-bundle.ts): the stylesheet's source, adopted by the page.
declare module '*.css' {
  const text: string;
  export default text;
}
