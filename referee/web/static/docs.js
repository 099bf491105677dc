// The API page: Swagger UI (served from this site) on the OpenAPI document the framework writes.
(() => {
  "use strict";
  const root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: root.dataset.spec, dom_id: "#swagger-ui", deepLinking: true });
})();
