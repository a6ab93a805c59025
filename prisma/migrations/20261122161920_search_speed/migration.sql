-- CreateTable
CREATE TABLE "search_title_words" (
    "product_id" TEXT NOT NULL,
    "word" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "title_norm" TEXT NOT NULL,
    "title_len" INTEGER NOT NULL,

    CONSTRAINT "search_title_words_pkey" PRIMARY KEY ("product_id","word")
);

-- AddForeignKey
ALTER TABLE "search_title_words" ADD CONSTRAINT "search_title_words_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "search_products"("product_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Manual (Prisma cannot express these).

-- Suggestions: products with a title or SKU word starting with what is typed, shortest titles first, read
-- as a range of this index in its order (text_pattern_ops: byte order, so the `~>=~`/`~<~` bounds work in
-- generic plans and `ORDER BY word USING ~<~` follows the index), index-only with the included columns.
CREATE INDEX "search_title_words_prefix_idx" ON "search_title_words"("project_id", "word" text_pattern_ops, "title_len", "title_norm") INCLUDE ("product_id", "title") WHERE "word" <> '';

-- search_reindex_products (search migration) now also keeps search_title_words.
CREATE OR REPLACE FUNCTION search_reindex_products(p_ids text[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  old_terms text[];
  new_terms text[];
BEGIN
  SELECT coalesce(array_agg(s.project_id || chr(1) || w), '{}') INTO old_terms
  FROM (SELECT project_id, words FROM search_products WHERE product_id = ANY(p_ids) ORDER BY product_id FOR UPDATE) s, unnest(s.words) w;

  DELETE FROM search_products s WHERE s.product_id = ANY(p_ids)
    AND NOT EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id AND p.deleted_at IS NULL AND p.status = 'active');

  INSERT INTO search_products (product_id, project_id, title, handle, product_type, tags, collection_ids, price, sale_price,
                               in_stock, image, title_norm, words, document, created_at)
  SELECT p.id, p.project_id, p.title, p.handle, p.product_type, p.tags, coalesce(c.ids, '{}'), p.price, p.sale_price,
         coalesce(v.in_stock, false), p.image, lower(unaccent(p.title)),
         ARRAY(SELECT DISTINCT w FROM regexp_split_to_table(lower(unaccent(concat_ws(' ', p.title, p.product_type, p.vendor,
                 array_to_string(p.tags, ' '), c.titles, v.titles, p.description))), '[^[:alpha:]]+') w WHERE length(w) >= 2 ORDER BY w),
         setweight(search_vector(unaccent(p.title)) || to_tsvector('search_exact', 'the ' || coalesce(v.skus, '')), 'A')
         || setweight(search_vector(x.b), 'B') || setweight(search_vector(x.c), 'C') || setweight(search_vector(x.d), 'D'),
         p.created_at
  FROM products p
  LEFT JOIN LATERAL (
    SELECT string_agg(title, ' ') AS titles, string_agg(sku, ' ') AS skus,
           bool_or(inventory_quantity > 0 OR inventory_policy = 'continue') AS in_stock
    FROM variants WHERE product_id = p.id
  ) v ON true
  LEFT JOIN LATERAL (
    SELECT array_agg(col.id ORDER BY col.id) AS ids, string_agg(col.title, ' ') AS titles
    FROM collection_products cp JOIN collections col ON col.id = cp.collection_id WHERE cp.product_id = p.id
  ) c ON true
  CROSS JOIN LATERAL (
    SELECT unaccent(concat_ws(' ', p.product_type, p.vendor, array_to_string(p.tags, ' '), c.titles)) AS b,
           unaccent(coalesce(v.titles, '')) AS c,
           unaccent(coalesce(p.description, '')) AS d
  ) x
  WHERE p.id = ANY(p_ids) AND p.deleted_at IS NULL AND p.status = 'active'
  ON CONFLICT (product_id) DO UPDATE SET
    title = EXCLUDED.title, handle = EXCLUDED.handle, product_type = EXCLUDED.product_type, tags = EXCLUDED.tags,
    collection_ids = EXCLUDED.collection_ids, price = EXCLUDED.price, sale_price = EXCLUDED.sale_price,
    in_stock = EXCLUDED.in_stock, image = EXCLUDED.image, title_norm = EXCLUDED.title_norm, words = EXCLUDED.words,
    document = EXCLUDED.document;

  -- The title and SKU words of the indexed products, for prefix suggestions (the others lost theirs with
  -- their search_products row).
  DELETE FROM search_title_words WHERE product_id = ANY(p_ids);
  INSERT INTO search_title_words (product_id, word, project_id, title, title_norm, title_len)
  SELECT DISTINCT ON (s.product_id, w) s.product_id, w, s.project_id, s.title, s.title_norm, length(s.title)
  FROM search_products s
  CROSS JOIN LATERAL regexp_split_to_table(s.title_norm || ' ' || lower(unaccent(coalesce(
    (SELECT string_agg(v.sku, ' ') FROM variants v WHERE v.product_id = s.product_id), ''))), '[^[:alnum:]]+') w
  WHERE s.product_id = ANY(p_ids) AND w <> ''
  ORDER BY s.product_id, w;

  SELECT coalesce(array_agg(s.project_id || chr(1) || w), '{}') INTO new_terms
  FROM search_products s, unnest(s.words) w WHERE s.product_id = ANY(p_ids);

  INSERT INTO search_terms (project_id, term, doc_count)
  SELECT split_part(k, chr(1), 1), split_part(k, chr(1), 2), sum(d)::int
  FROM (SELECT unnest(new_terms) AS k, 1 AS d UNION ALL SELECT unnest(old_terms), -1) delta
  GROUP BY k HAVING sum(d) <> 0 ORDER BY 1, 2
  ON CONFLICT (project_id, term) DO UPDATE SET doc_count = search_terms.doc_count + EXCLUDED.doc_count;
END
$fn$;

-- Products indexed before this migration.
INSERT INTO search_title_words (product_id, word, project_id, title, title_norm, title_len)
SELECT DISTINCT ON (s.product_id, w) s.product_id, w, s.project_id, s.title, s.title_norm, length(s.title)
FROM search_products s
CROSS JOIN LATERAL regexp_split_to_table(s.title_norm || ' ' || lower(unaccent(coalesce(
  (SELECT string_agg(v.sku, ' ') FROM variants v WHERE v.product_id = s.product_id), ''))), '[^[:alnum:]]+') w
WHERE w <> ''
ORDER BY s.product_id, w;

-- Search answers are cached per process (src/modules/search/search.service.ts, VersionedCache): every
-- write statement to a table they are computed from notifies `table_changed` on commit (the function of
-- the list_totals migration), so every server process drops what a write made stale.
CREATE TRIGGER search_products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_products FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_title_words_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_title_words FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_terms_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_terms FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_synonym_groups_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_synonym_groups FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_merchandising_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_merchandising_rules FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_query_stats_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_query_stats FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
