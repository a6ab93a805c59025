-- Typo-correction candidates (see 20261122135604_search) for words and vocabulary terms of any length:
-- levenshtein refuses arguments over 255 characters (a 500 on search and suggest once a product title held
-- such a word; found by the contract fuzz), so longer words and terms are left out of correction.
CREATE OR REPLACE FUNCTION search_term_candidates(p_project text, p_words text[])
RETURNS TABLE(word text, term text, doc_count int, prefix_known boolean)
LANGUAGE sql STABLE SET pg_trgm.similarity_threshold = 0.15 AS $fn$
  SELECT w, t.term, t.doc_count,
         EXISTS (SELECT 1 FROM search_terms s WHERE s.project_id = p_project AND s.doc_count > 0 AND s.term LIKE w || '%')
  FROM unnest(p_words) AS w
  LEFT JOIN LATERAL (
    SELECT st.term, st.doc_count FROM search_terms st
    WHERE st.project_id = p_project AND st.doc_count > 0 AND st.term % w
      -- CASE, not AND: SQL does not promise to test the lengths before calling levenshtein.
      AND CASE WHEN length(st.term) <= 255 AND length(w) <= 255
               THEN levenshtein_less_equal(st.term, w, CASE WHEN length(w) >= 8 THEN 3 ELSE 2 END) <= CASE WHEN length(w) >= 8 THEN 3 ELSE 2 END
               ELSE false END
    ORDER BY st.term = w DESC, similarity(st.term, w) DESC, st.doc_count DESC
    LIMIT 20
  ) t ON true
$fn$;
