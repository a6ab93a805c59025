-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "fuzzystrmatch";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "unaccent";

-- CreateTable
CREATE TABLE "search_products" (
    "product_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "product_type" TEXT,
    "tags" TEXT[],
    "collection_ids" TEXT[],
    "price" INTEGER NOT NULL,
    "sale_price" INTEGER,
    "in_stock" BOOLEAN NOT NULL,
    "image" TEXT,
    "title_norm" TEXT NOT NULL,
    "words" TEXT[],
    "document" tsvector NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_products_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "search_terms" (
    "project_id" TEXT NOT NULL,
    "term" TEXT NOT NULL,
    "doc_count" INTEGER NOT NULL,

    CONSTRAINT "search_terms_pkey" PRIMARY KEY ("project_id","term")
);

-- CreateTable
CREATE TABLE "search_synonym_groups" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "synonym_type" TEXT NOT NULL,
    "terms" TEXT[],
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_synonym_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "search_merchandising_rules" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "match_query" TEXT NOT NULL,
    "match_type" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "pin_position" INTEGER,
    "score_multiplier" DOUBLE PRECISION,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_merchandising_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "search_queries" (
    "id" BIGSERIAL NOT NULL,
    "project_id" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "result_count" INTEGER NOT NULL,
    "took_ms" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_queries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "search_query_stats" (
    "project_id" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "search_count" INTEGER NOT NULL,
    "last_result_count" INTEGER NOT NULL,
    "last_searched_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_query_stats_pkey" PRIMARY KEY ("project_id","query")
);

-- CreateIndex
CREATE INDEX "search_products_project_id_idx" ON "search_products"("project_id");

-- CreateIndex
CREATE INDEX "search_products_document_idx" ON "search_products" USING GIN ("document");

-- CreateIndex
CREATE INDEX "search_terms_term_trgm_idx" ON "search_terms" USING GIN ("term" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "search_synonym_groups_project_id_created_at_id_idx" ON "search_synonym_groups"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "search_merchandising_rules_project_id_priority_created_at_idx" ON "search_merchandising_rules"("project_id", "priority", "created_at");

-- CreateIndex
CREATE INDEX "search_queries_project_id_created_at_idx" ON "search_queries"("project_id", "created_at");

-- AddForeignKey
ALTER TABLE "search_products" ADD CONSTRAINT "search_products_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "search_synonym_groups" ADD CONSTRAINT "search_synonym_groups_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "search_merchandising_rules" ADD CONSTRAINT "search_merchandising_rules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Manual (Prisma cannot express these).

-- Two active pin rules cannot share (match_query, match_type, pin_position): 409 conflict.
CREATE UNIQUE INDEX "search_merchandising_rules_active_pin_key" ON "search_merchandising_rules"("project_id", "match_query", "match_type", "pin_position") WHERE "action" = 'pin' AND "is_active";

-- Suggestions of popular queries by prefix read only queries that had results.
CREATE INDEX "search_query_stats_prefix_idx" ON "search_query_stats"("project_id", "query" text_pattern_ops, "search_count") WHERE "last_result_count" > 0;

-- Exact forms: words as written (no stemming), english stop words dropped but counted, like the english config.
CREATE TEXT SEARCH DICTIONARY search_exact_dict (TEMPLATE = pg_catalog.simple, STOPWORDS = english);
CREATE TEXT SEARCH CONFIGURATION search_exact (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION search_exact ALTER MAPPING REPLACE simple WITH search_exact_dict;

-- One field of a document: english stems, then the exact forms. Each part starts with a stop word, which
-- leaves a gap in the positions, so a phrase can never match across two parts or two fields.
CREATE FUNCTION search_vector(body text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT to_tsvector('english'::regconfig, 'the ' || coalesce(body, '')) || to_tsvector('search_exact'::regconfig, 'the ' || coalesce(body, ''))
$fn$;

-- Rebuilds the search documents of the given products in the caller's transaction: active, live products
-- get their document (weighted english stems plus exact forms; A title and SKUs, B type, vendor, tags and
-- collection titles, C variant titles, D description), all others lose it; the vocabulary counts follow.
-- Rows are locked in product id order, and vocabulary rows are written in (project, term) order, so
-- concurrent reindexes cannot deadlock.
CREATE FUNCTION search_reindex_products(p_ids text[]) RETURNS void LANGUAGE plpgsql AS $fn$
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

  SELECT coalesce(array_agg(s.project_id || chr(1) || w), '{}') INTO new_terms
  FROM search_products s, unnest(s.words) w WHERE s.product_id = ANY(p_ids);

  INSERT INTO search_terms (project_id, term, doc_count)
  SELECT split_part(k, chr(1), 1), split_part(k, chr(1), 2), sum(d)::int
  FROM (SELECT unnest(new_terms) AS k, 1 AS d UNION ALL SELECT unnest(old_terms), -1) delta
  GROUP BY k HAVING sum(d) <> 0 ORDER BY 1, 2
  ON CONFLICT (project_id, term) DO UPDATE SET doc_count = search_terms.doc_count + EXCLUDED.doc_count;
END
$fn$;

-- Stock changes come from inventory, orders and variant writes: in_stock follows them here.
CREATE FUNCTION search_products_stock() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE search_products s SET in_stock = EXISTS (
    SELECT 1 FROM variants v WHERE v.product_id = s.product_id AND (v.inventory_quantity > 0 OR v.inventory_policy = 'continue'))
  WHERE s.product_id = NEW.product_id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER search_products_stock AFTER UPDATE OF inventory_quantity, inventory_policy ON variants FOR EACH ROW
  WHEN ((OLD.inventory_quantity > 0) IS DISTINCT FROM (NEW.inventory_quantity > 0) OR OLD.inventory_policy IS DISTINCT FROM NEW.inventory_policy)
  EXECUTE FUNCTION search_products_stock();

-- Products that exist before this migration.
SELECT search_reindex_products(ARRAY(SELECT id FROM products));

-- Typo correction: for each query word, the project's vocabulary terms that share trigrams with it and are
-- within reach of its edit budget (Levenshtein, one more than the budget so that transpositions, checked as
-- Damerau distance by the caller, are kept), best first; and whether any term starts with the word (a word
-- still being typed needs no correction then). The low trigram threshold keeps short words with a typo.
CREATE INDEX "search_terms_prefix_idx" ON "search_terms"("project_id", "term" text_pattern_ops) WHERE "doc_count" > 0;
CREATE FUNCTION search_term_candidates(p_project text, p_words text[])
RETURNS TABLE(word text, term text, doc_count int, prefix_known boolean)
LANGUAGE sql STABLE SET pg_trgm.similarity_threshold = 0.15 AS $fn$
  SELECT w, t.term, t.doc_count,
         EXISTS (SELECT 1 FROM search_terms s WHERE s.project_id = p_project AND s.doc_count > 0 AND s.term LIKE w || '%')
  FROM unnest(p_words) AS w
  LEFT JOIN LATERAL (
    SELECT st.term, st.doc_count FROM search_terms st
    WHERE st.project_id = p_project AND st.doc_count > 0 AND st.term % w
      AND levenshtein_less_equal(st.term, w, CASE WHEN length(w) >= 8 THEN 3 ELSE 2 END) <= CASE WHEN length(w) >= 8 THEN 3 ELSE 2 END
    ORDER BY st.term = w DESC, similarity(st.term, w) DESC, st.doc_count DESC
    LIMIT 20
  ) t ON true
$fn$;
