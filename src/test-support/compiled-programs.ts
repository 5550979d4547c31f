import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inTemp, run } from './program-run.js';

/**
 * `make -k` building many C files with gcc, one of which does not compile, at `depth`.
 *
 * @example
 * makeBuild(0.5); // gcc's error for m30.c among the objects' listings
 */
export function makeBuild(depth: number): string {
  return inTemp((dir) => {
    const n = 60;
    const broken = Math.floor(n * depth);
    const objects: string[] = [];
    for (let i = 0; i < n; i++) {
      const body =
        i === broken
          ? `int f${i}(int x) { int y = x * 2\n  return undefined_total + y; }\n`
          : `int f${i}(int x) { return x * ${i}; }\n`;
      writeFileSync(join(dir, `m${i}.c`), body);
      objects.push(`m${i}.o`);
    }
    writeFileSync(
      join(dir, 'Makefile'),
      `all: ${objects.join(' ')}\n\t@echo linked\n%.o: %.c\n\tgcc -Wall -c $< -o $@ && nm -A $@ && size -A $@\n`,
    );
    return run('make', ['-k', '-j1'], dir);
  });
}

const CART_GO = `package cart

// Item is one line of a cart.
type Item struct{ Price int }

// Total adds up the prices of the first n items.
func Total(items []Item, n int) int {
	t := 0
	for i := 0; i < n; i++ {
		t += items[i].Price
	}
	return t
}
`;

/**
 * A Go service logging each order it ships, in lines that differ in more than numbers; its
 * handler recovers a panic at `depth` (an index out of range in another package) and logs it
 * with its goroutine trace, through the runtime's frames and the program's.
 *
 * @example
 * goServiceLog(0.5); // ... 'panic serving order 2000: runtime error: index out of range [3] ...'
 */
export function goServiceLog(depth: number): string {
  return inTemp((dir) => {
    writeFileSync(join(dir, 'go.mod'), 'module example.com/shop\n\ngo 1.19\n');
    mkdirSync(join(dir, 'cart'));
    writeFileSync(join(dir, 'cart', 'cart.go'), CART_GO);
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"fmt"
	"log"
	"os"
	"runtime/debug"

	"example.com/shop/cart"
)

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}

func process(order, bad int) int {
	items := []cart.Item{{Price: 1}, {Price: 2}, {Price: 3}}
	n := len(items)
	if order == bad {
		n++
	}
	return cart.Total(items, n)
}

func handle(order, bad int) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("panic serving order %d: %v\\n%s", order, r, debug.Stack())
		}
	}()
	total := process(order, bad)
	fmt.Printf("order %d for %s/%s shipped via %s total=%d\\n", order, words[order%7], words[(order/7)%7], words[(order/49)%7], total)
}

func main() {
	log.SetOutput(os.Stdout)
	const n = 4000
	for i := 0; i < n; i++ {
		handle(i, ${Math.floor(4000 * depth)})
	}
	fmt.Printf("served %d orders, 1 failed\\n", n)
}
`,
    );
    // Its own build cache and module path, and the toolchain installed: nothing outside the
    // temporary directory is written, and nothing is downloaded.
    return run('go', ['run', '.'], dir, {
      GOCACHE: join(dir, 'cache'),
      GOPATH: join(dir, 'gopath'),
      GOFLAGS: '-mod=mod',
      GOTOOLCHAIN: 'local',
    });
  });
}

/**
 * `cargo test` with RUST_BACKTRACE=1 over many passing tests and two failing: an index out of
 * bounds in a helper at `depth`, and an unwrap of an error a third of the run later (or earlier).
 * Each backtrace runs from Rust's panic machinery through the crate's frames to the harness.
 *
 * @example
 * cargoTestRun(0.5); // ... "thread 'tests::order_300' panicked at src/lib.rs..." and its backtrace
 */
export function cargoTestRun(depth: number): string {
  return inTemp((dir) => {
    writeFileSync(
      join(dir, 'Cargo.toml'),
      '[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n',
    );
    mkdirSync(join(dir, 'src'));
    const n = 600;
    const outOfBounds = Math.floor(n * depth);
    const unwrapped = Math.floor(n * ((depth + 0.33) % 1));
    const test = (i: number, body: string) => `    #[test]\n    fn order_${i}() {\n        ${body}\n    }`;
    const tests = Array.from({ length: n }, (_, i) =>
      i === outOfBounds
        ? test(i, `let prices = vec![1, 2, 3];\n        assert!(price(&prices, prices.len() + ${i}) > 0);`)
        : i === unwrapped
          ? test(
              i,
              `let paid: Result<u32, String> = Err("card declined for order ${i}".into());\n        paid.unwrap();`,
            )
          : test(i, `assert_eq!(${i} + 1, ${i + 1});`),
    );
    writeFileSync(
      join(dir, 'src', 'lib.rs'),
      `#[cfg(test)]\nmod tests {\n    fn price(prices: &[u32], i: usize) -> u32 {\n        prices[i]\n    }\n${tests.join('\n')}\n}\n`,
    );
    return run('cargo', ['test', '--offline', '--', '--test-threads=1'], dir, {
      RUST_BACKTRACE: '1',
      CARGO_TARGET_DIR: join(dir, 'target'),
      CARGO_TERM_COLOR: 'never',
    });
  });
}
