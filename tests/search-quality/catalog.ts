/** A generated, realistic catalog (apparel, home, electronics) and graded queries over it; deterministic. */

export interface FixtureProduct {
  title: string;
  description: string;
  productType: string;
  vendor: string;
  tags: string[];
  color: string;
  material: string;
  variants: string[];
  price: number;
  // Facts the judgements read.
  noun: string;
  department: string;
}

const DEPARTMENTS: Record<
  string,
  { brands: string[]; nouns: Array<[noun: string, type: string]>; materials: string[]; sizes: string[] }
> = {
  apparel: {
    brands: ['Northpeak', 'Fjellgear', 'Urbanthread', 'Coastline', 'Harbor & Co'],
    nouns: [
      ['Shirt', 'Shirts'],
      ['T-Shirt', 'Shirts'],
      ['Hoodie', 'Sweatshirts'],
      ['Sweater', 'Knitwear'],
      ['Jacket', 'Outerwear'],
      ['Parka', 'Outerwear'],
      ['Jeans', 'Pants'],
      ['Chinos', 'Pants'],
      ['Dress', 'Dresses'],
      ['Skirt', 'Skirts'],
      ['Sneakers', 'Shoes'],
      ['Boots', 'Shoes'],
    ],
    materials: ['Linen', 'Cotton', 'Merino Wool', 'Denim', 'Fleece', 'Leather', 'Cashmere'],
    sizes: ['XS', 'S', 'M', 'L', 'XL'],
  },
  home: {
    brands: ['Hearthly', 'Nordhem', 'Casa Verde', 'Oakline'],
    nouns: [
      ['Table Lamp', 'Lighting'],
      ['Floor Lamp', 'Lighting'],
      ['Throw Blanket', 'Textiles'],
      ['Cushion Cover', 'Textiles'],
      ['Duvet Cover', 'Bedding'],
      ['Coffee Table', 'Furniture'],
      ['Armchair', 'Furniture'],
      ['Bookshelf', 'Furniture'],
      ['Vase', 'Decor'],
      ['Mug', 'Kitchen'],
      ['Frying Pan', 'Kitchen'],
      ['Rug', 'Textiles'],
    ],
    materials: ['Oak', 'Walnut', 'Ceramic', 'Glass', 'Linen', 'Cotton', 'Stainless Steel', 'Wool'],
    sizes: ['Small', 'Medium', 'Large'],
  },
  electronics: {
    brands: ['Voltix', 'Soundwave', 'Pixelon', 'Kinetic'],
    nouns: [
      ['Headphones', 'Audio'],
      ['Earbuds', 'Audio'],
      ['Bluetooth Speaker', 'Audio'],
      ['Smartwatch', 'Wearables'],
      ['Fitness Tracker', 'Wearables'],
      ['Laptop Stand', 'Accessories'],
      ['USB-C Charger', 'Accessories'],
      ['Power Bank', 'Accessories'],
      ['Mechanical Keyboard', 'Computer'],
      ['Wireless Mouse', 'Computer'],
      ['Webcam', 'Computer'],
      ['Monitor', 'Computer'],
    ],
    materials: ['Aluminium', 'Plastic', 'Silicone', 'Fabric', 'Carbon Fiber'],
    sizes: ['Standard', 'Pro', 'Max'],
  },
};
const COLORS = [
  'Black',
  'White',
  'Navy',
  'Blue',
  'Red',
  'Green',
  'Grey',
  'Beige',
  'Olive',
  'Burgundy',
  'Sand',
  'Charcoal',
];
const STYLES = [
  'Classic',
  'Essential',
  'Everyday',
  'Premium',
  'Vintage',
  'Modern',
  'Slim',
  'Relaxed',
  'Travel',
  'Studio',
  'Outdoor',
  'Heritage',
];
const BENEFITS = [
  'breathable',
  'waterproof',
  'lightweight',
  'durable',
  'soft',
  'warm',
  'compact',
  'wireless',
  'ergonomic',
  'handmade',
];

// A small linear congruential generator: the same catalog on every run.
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** `count` products spread over the three departments, reproducible. */
export function generateCatalog(count: number, seed = 42): FixtureProduct[] {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const departments = Object.keys(DEPARTMENTS);
  const products: FixtureProduct[] = [];
  for (let i = 0; i < count; i++) {
    const department = departments[i % departments.length];
    const d = DEPARTMENTS[department];
    const [noun, productType] = pick(d.nouns);
    const brand = pick(d.brands);
    const material = pick(d.materials);
    const color = pick(COLORS);
    const style = pick(STYLES);
    const benefit = pick(BENEFITS);
    const title = `${brand} ${style} ${material} ${noun}`;
    products.push({
      title,
      description: `A ${benefit} ${noun.toLowerCase()} in ${color.toLowerCase()} ${material.toLowerCase()}, made by ${brand} for ${department === 'home' ? 'your home' : 'every day'}.`,
      productType,
      vendor: brand,
      tags: [department, benefit, color.toLowerCase()],
      color,
      material,
      variants: d.sizes.slice(0, 2 + (i % 2)).map((size) => `${size} / ${color}`),
      price: 1500 + Math.floor(next() * 400) * 100,
      noun,
      department,
    });
  }
  return products;
}

export interface Judged {
  q: string;
  kind: string;
  /** 0 (irrelevant), 1 (related), 2 (what was asked for), 3 (exactly that product). */
  grade: (p: FixtureProduct) => number;
}

const lower = (s: string) => s.toLowerCase();
const has = (p: FixtureProduct, word: string) =>
  lower(`${p.title} ${p.description} ${p.productType} ${p.tags.join(' ')} ${p.variants.join(' ')}`).includes(
    lower(word),
  );

// Misspellings a shopper makes: a transposition, a dropped or doubled letter.
function misspell(word: string, n: number): string {
  const w = lower(word);
  if (w.length < 5) return w;
  const i = 1 + (n % (w.length - 3));
  switch (n % 3) {
    case 0:
      return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    case 1:
      return w.slice(0, i) + w.slice(i + 1);
    default:
      return w.slice(0, i) + w[i] + w.slice(i);
  }
}

export const SYNONYMS = [
  { synonym_type: 'equivalent' as const, terms: ['sweater', 'jumper', 'pullover'] },
  { synonym_type: 'equivalent' as const, terms: ['sneakers', 'trainers'] },
  { synonym_type: 'equivalent' as const, terms: ['headphones', 'headset'] },
  { synonym_type: 'oneway' as const, terms: ['sofa', 'armchair'] },
  { synonym_type: 'equivalent' as const, terms: ['tee', 't-shirt', 'tee shirt'] },
];

/** At least 180 graded queries of nine kinds over the catalog (25 exact names, 33 sentences). */
export function generateQueries(catalog: FixtureProduct[]): Judged[] {
  const queries: Judged[] = [];
  const nouns = [...new Set(catalog.map((p) => p.noun))];
  // Exact product names.
  for (const p of catalog.filter((_, i) => i % 67 === 0).slice(0, 25)) {
    queries.push({
      q: p.title,
      kind: 'exact name',
      grade: (x) =>
        x.title === p.title ? 3 : x.noun === p.noun && x.material === p.material ? 2 : x.noun === p.noun ? 1 : 0,
    });
  }
  // Sentences: a kind of product with a colour and/or a material, wrapped in words a shopper types and no
  // product holds (occasions, audiences, seasons). The kind and every named attribute: 2; the kind: 1.
  const openers = [
    'looking for a',
    'i need a',
    'cozy',
    'comfortable',
    'something like a',
    'best',
    'a nice',
    'affordable',
  ];
  const closers = [
    'for the weekend',
    'for my dad',
    'as a gift for her',
    'for summer evenings',
    'for the office',
    'for a small apartment',
    'that lasts for years',
    'for rainy autumn days',
    'for my teenage son',
    'to take on holiday',
  ];
  catalog
    .filter((_, i) => i % 71 === 5)
    .slice(0, 33)
    .forEach((p, n) => {
      const noun = lower(p.noun);
      const opener = openers[n % openers.length];
      const closer = closers[(n * 3) % closers.length];
      const form = n % 3;
      const attributes = form === 0 ? [p.color] : form === 1 ? [p.material] : [p.color, p.material];
      queries.push({
        q: `${opener} ${attributes.map(lower).join(' ')} ${noun} ${closer}`,
        kind: 'natural language',
        grade: (x) => (x.noun !== p.noun ? 0 : attributes.every((a) => a === x.color || a === x.material) ? 2 : 1),
      });
    });
  // Category words, singular and plural.
  for (const noun of nouns) {
    const word = lower(noun.split(' ').at(-1)!);
    queries.push({ q: word, kind: 'category', grade: (x) => (lower(x.noun).endsWith(word) ? 2 : 0) });
  }
  for (const noun of nouns.slice(0, 20)) {
    const word = lower(noun.split(' ').at(-1)!);
    if (word.endsWith('s')) continue;
    queries.push({ q: `${word}s`, kind: 'plural', grade: (x) => (lower(x.noun).endsWith(word) ? 2 : 0) });
  }
  // Misspellings of category words and brands.
  nouns
    .filter((n) => n.length >= 5)
    .forEach((noun, n) => {
      const word = lower(noun.split(' ').at(-1)!);
      if (word.length < 5) return;
      queries.push({ q: misspell(word, n), kind: 'misspelling', grade: (x) => (lower(x.noun).endsWith(word) ? 2 : 0) });
    });
  const brands = [...new Set(catalog.map((p) => p.vendor))].filter((b) => !b.includes('&'));
  brands.forEach((brand, n) =>
    queries.push({ q: misspell(brand, n + 1), kind: 'misspelling', grade: (x) => (x.vendor === brand ? 2 : 0) }),
  );
  // Brand + type.
  for (const p of catalog.filter((_, i) => i % 53 === 0).slice(0, 30)) {
    const word = lower(p.noun);
    queries.push({
      q: `${p.vendor} ${word}`,
      kind: 'brand + type',
      grade: (x) => (x.vendor === p.vendor && x.noun === p.noun ? 2 : x.noun === p.noun ? 1 : 0),
    });
  }
  // Colour / material + type.
  for (const p of catalog.filter((_, i) => i % 41 === 0).slice(0, 25)) {
    queries.push({
      q: `${lower(p.color)} ${lower(p.material)} ${lower(p.noun)}`,
      kind: 'attributes',
      grade: (x) =>
        x.noun === p.noun && x.material === p.material && x.color === p.color
          ? 2
          : x.noun === p.noun && (x.material === p.material || x.color === p.color)
            ? 1
            : 0,
    });
  }
  // Synonyms from the fixture.
  queries.push({ q: 'jumper', kind: 'synonym', grade: (x) => (x.noun === 'Sweater' ? 2 : 0) });
  queries.push({ q: 'pullover', kind: 'synonym', grade: (x) => (x.noun === 'Sweater' ? 2 : 0) });
  queries.push({ q: 'trainers', kind: 'synonym', grade: (x) => (x.noun === 'Sneakers' ? 2 : 0) });
  queries.push({ q: 'headset', kind: 'synonym', grade: (x) => (x.noun === 'Headphones' ? 2 : 0) });
  queries.push({ q: 'sofa', kind: 'synonym', grade: (x) => (x.noun === 'Armchair' ? 2 : 0) });
  queries.push({
    q: 'tee shirt',
    kind: 'synonym',
    grade: (x) => (x.noun === 'T-Shirt' ? 2 : x.noun === 'Shirt' ? 1 : 0),
  });
  queries.push({
    q: 'merino jumper',
    kind: 'synonym',
    grade: (x) => (x.noun === 'Sweater' && x.material === 'Merino Wool' ? 2 : x.noun === 'Sweater' ? 1 : 0),
  });
  // Phrases and exclusions.
  for (const material of ['Merino Wool', 'Stainless Steel', 'Carbon Fiber']) {
    queries.push({ q: `"${lower(material)}"`, kind: 'phrase', grade: (x) => (x.material === material ? 2 : 0) });
  }
  for (const noun of ['Table Lamp', 'Floor Lamp', 'Power Bank', 'Throw Blanket', 'Coffee Table']) {
    queries.push({ q: `"${lower(noun)}"`, kind: 'phrase', grade: (x) => (x.noun === noun ? 2 : 0) });
  }
  for (const [word, excluded] of [
    ['jacket', 'black'],
    ['lamp', 'floor'],
    ['shirt', 'linen'],
    ['headphones', 'white'],
    ['table', 'coffee'],
    ['boots', 'leather'],
  ]) {
    queries.push({
      q: `${word} -${excluded}`,
      kind: 'exclusion',
      grade: (x) => (has(x, word) && lower(x.noun).includes(word.replace(/s$/, '')) && !has(x, excluded) ? 2 : 0),
    });
  }
  return queries;
}

/** nDCG@k of a ranked list of grades against the ideal ordering of all grades. */
export function ndcg(ranked: number[], all: number[], k = 10): number {
  const dcg = (grades: number[]) => grades.slice(0, k).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...all].sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked) / ideal;
}
