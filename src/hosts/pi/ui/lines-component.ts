/**
 * The one pi-tui component cadre's renderers return: lines computed for a width by a pure function,
 * cached until the width changes or {@link LinesComponent.invalidate} is called (pi calls it when
 * the theme changes; cadre calls it when what it shows changed).
 */
import type { Component } from "@earendil-works/pi-tui";
import { fitAll } from "./text.ts";

export class LinesComponent implements Component {
	private cachedWidth = -1;
	private cached: string[] = [];

	private readonly lines: (width: number) => string[];

	constructor(lines: (width: number) => string[]) {
		this.lines = lines;
	}

	render(width: number): string[] {
		if (width !== this.cachedWidth) {
			// Every line fits, whatever the renderer returned.
			this.cached = fitAll(this.lines(width), width);
			this.cachedWidth = width;
		}
		return this.cached;
	}

	invalidate(): void {
		this.cachedWidth = -1;
	}
}
