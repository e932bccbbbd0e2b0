// Types of scripts/demo-page.mjs, for the test that renders the page (test/e2e/demo-page.e2e.test.ts).
export interface DemoCode {
  /** What to type in the demo's terminal to scan it; shown as "#n". */
  n: string;
  code: string;
  holder: string;
  type: string;
  expect: string;
  kind: 'setup' | 'calibration' | 'valid' | 'refuse';
}

export function qrImage(code: string): Promise<{ src: string; sideModules: number; sidePx: number }>;

/** `intro` is HTML. */
export function ticketsPageHtml(page: { title: string; heading: string; intro: string; codes: DemoCode[] }): Promise<string>;
