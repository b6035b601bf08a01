// The review screen's Text: Ink's, with every string child made visible (../../safe-text.ts), so no
// component can print a bot's words with their control characters raw. Every component of the screen
// imports Text from here, never from "ink" (test/cli/review/app.test.ts checks it).
import { Text as InkText } from "ink";
import { Children, createElement as h, type ComponentProps, type ReactElement } from "react";
import { visible } from "../../safe-text.ts";

export function Text({ children, ...props }: ComponentProps<typeof InkText>): ReactElement {
  return h(InkText, props, ...Children.map(children, (child) => (typeof child === "string" ? visible(child) : child)) ?? []);
}
