{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id') }}

select id, customer_id, amount, updated_at
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
