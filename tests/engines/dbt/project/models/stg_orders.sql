{{ config(materialized='view') }}

select id, customer_id, amount, updated_at
from {{ source('raw', 'orders') }}
where amount is not null
