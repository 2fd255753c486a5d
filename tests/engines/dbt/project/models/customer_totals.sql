{{ config(materialized='table') }}

select c.name as customer, c.country, count(*) as orders, sum(o.amount) as total
from {{ ref('orders_latest') }} o
join {{ ref('customers') }} c on c.id = o.customer_id
group by c.name, c.country
