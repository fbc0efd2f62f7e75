import {
  Badge,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';

/**
 * Mantine's defaults miss WCAG AA contrast (4.5:1) in places the console uses everywhere: white text on filled
 * badges and buttons in shade 6 (2.4:1 on green, 3.6:1 on blue), coloured text of light and outline badges and
 * alerts (3.3 to 3.6:1), links in blue 6 (3.6:1) and "dimmed" text in gray 6 (3.3:1). The console's end-to-end test
 * runs axe-core on every view, so a regression here fails it.
 */

/** Light and outline variants write in the colour itself: its darkest shade, darkened further, reads at 5.7:1 or better. */
const readableVariantColours: VariantColorsResolver = (input) => {
  const colours = defaultVariantColorsResolver(input);
  if (input.variant !== 'light' && input.variant !== 'outline') return colours;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor) return colours;
  const text = darken(input.theme.colors[parsed.color][9], 0.25);
  return { ...colours, color: text, hoverColor: text };
};

export const consoleTheme = createTheme({
  // Text on a filled colour is black or white by the colour's luminance. Every shade-6 colour is lighter than 0.15,
  // so it gets black text (5.9:1 or better); dark fills (gray 8, dark) keep white.
  autoContrast: true,
  luminanceThreshold: 0.15,
  variantColorResolver: readableVariantColours,
  components: {
    // A badge holds one word (a status, a kind): cut to "CO…" in a narrow table column on a phone it says nothing,
    // so it keeps its full width and the column makes room.
    Badge: Badge.extend({ styles: { root: { overflow: 'visible' }, label: { overflow: 'visible' } } }),
  },
});

export const consoleCssVariables: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': theme.colors.gray[7],
    '--mantine-color-anchor': theme.colors.blue[8],
  },
  dark: {},
});
